"""One scenario's session on ADK: runs of a resumable ``App`` over a ``SqliteSessionService`` file in the scratch
directory (``session.db``: the session's events, which ADK writes as the runner yields them). ``session.json`` holds
what ADK's events do not say: that a run raised (``error``) and, in ``contract``, the uncertain call.

A tool result is traced when its function-response event is in the session (the conversation the next model turn is
built from); ADK's answer to a call it holds for confirmation (``requested_tool_confirmations``) is the pause, not a
result. In ``mcp`` mode the agent's tools are an ``McpToolset`` (``mcp.py``), closed with the session at the end of the
step; a call's status is what ADK hands the model: the server's ``CallToolResult`` (``ok`` unless ``isError``), or ADK's
own error answer (``{"error": ...}``) when the call failed under it.

The calls waiting on a human are the ``adk_request_confirmation`` calls of the latest invocation that no user event
answers; each is answered by a ``FunctionResponse`` with that call's id, sent with the same ``invocation_id``.
"""

from __future__ import annotations

import base64
import dataclasses
import json
from pathlib import Path
from typing import Any

from google.adk.events.event import Event
from google.adk.runners import Runner
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.adk.tools.base_toolset import BaseToolset
from google.genai import types

from adapters.approval_objects import named_call
from adapters.column import SessionContext
from adapters.glue_blocks import resume_position
from handwritten.canonical import args_hash, canonical_json
from harness.column_side.protocol import Decision, PendingCall, StepOutcome
from harness.records import RunStatus

from .model import CONFIRMATION
from .tools import USER_KEY, needs_approval

APP, DB, STATE = "fixture_app", "session.db", "session.json"


class ADKSession:
    """The session in the scratch directory; ``statuses`` is where the glue (and ``decide``) put each call's status."""

    def __init__(self, runner: Runner, context: SessionContext, statuses: dict[str, str], toolsets: list[BaseToolset] | None = None) -> None:
        self.runner, self.contract, self.emit = runner, context.contract, context.trace.emit
        self.scratch, self.statuses, self.scenario, self.world = context.scratch, statuses, context.scenario, context.world
        self.service: SqliteSessionService = runner.session_service  # type: ignore[assignment]
        self.toolsets = toolsets or []  # mcp mode: the McpToolset, closed in close()

    async def events(self) -> list[Event]:
        session = await self.service.get_session(app_name=APP, user_id=self.scenario.user, session_id=self.scenario.session_id)
        return list(session.events) if session is not None else []

    def _state(self) -> dict[str, Any]:
        path = self.scratch / STATE
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}

    def _set_state(self, **state: Any) -> None:
        (self.scratch / STATE).write_text(json.dumps(state), encoding="utf-8")

    async def outcome(self) -> StepOutcome:
        state, events = self._state(), await self.events()
        pending = tuple(PendingCall(c["id"], c["name"], c.get("args") or {}) for c in waiting(events).values())
        status: RunStatus = state.get("status") or ("awaiting_approval" if pending else "completed")
        return StepOutcome(status, status, pending=pending)

    async def _run(self, message: types.Content | None, invocation_id: str | None) -> StepOutcome:
        """One run of the runner (a new invocation, or ``invocation_id`` continued), traced as its events arrive."""
        if not await self.events():
            await self.service.create_session(app_name=APP, user_id=self.scenario.user, session_id=self.scenario.session_id,
                                              state={USER_KEY: self.scenario.user})
        self._set_state()
        try:
            async for event in self.runner.run_async(user_id=self.scenario.user, session_id=self.scenario.session_id, new_message=message,
                                                     invocation_id=invocation_id):
                self._trace(event)
        except Exception:
            self._set_state(status="error")
            raise
        return await self.outcome()

    def _trace(self, event: Event) -> None:
        held = event.actions.requested_tool_confirmations or {}
        for response in event.get_function_responses():
            if response.id in held or response.name == CONFIRMATION:
                continue  # ADK's answer while the call waits for confirmation: the pause, not a result
            status = self.statuses.get(response.id or "") or (mcp_status(response.response) if self.toolsets else "error")  # else ADK's own answer
            self.emit({"kind": "tool_result", "call_id": response.id, "status": status, "content": canonical_json(response.response or {})})

    async def deliver(self, text: str) -> StepOutcome:
        """A new invocation with the user's text, as the docs run an agent."""
        return await self._run(types.Content(role="user", parts=[types.Part(text=text)]), None)

    async def decide(self, decisions: list[Decision]) -> StepOutcome:
        """Each decision as the confirmation ``FunctionResponse`` the docs describe: the ``adk_request_confirmation``
        call's id and ``{"confirmed": ...}``, sent with the invocation that asked. A misused approval is the response a
        confused caller sends: with the id of the confirmation request of the call it names. A caller answers the
        requests it was shown: a decision on a call ADK never asked about is never handed over."""
        asked = requests(await self.events())
        targets = [named_call(self.scenario, d).call_id if d.misuse in ("other_call", "reused") else d.call_id for d in decisions]
        if missing := [d.call_id for d, target in zip(decisions, targets, strict=True) if target not in asked]:
            self.emit({"kind": "decision_without_call", "call_ids": missing})
            return dataclasses.replace(await self.outcome(), ran=False)
        self.statuses |= {d.call_id: "rejected" for d in decisions if not d.approve}
        parts = [types.Part(function_response=types.FunctionResponse(id=asked[target]["confirmation_id"], name=CONFIRMATION,
                                                                     response={"confirmed": d.approve})) for d, target in zip(decisions, targets, strict=True)]
        return await self._run(types.Content(role="user", parts=parts), asked[targets[0]]["invocation"])

    async def resume(self) -> StepOutcome:
        """The latest invocation continued with no new message, as the Resume page does (``run_async(invocation_id=...)``)."""
        events = await self.events()
        if (invocation := latest_invocation(events)) is None:
            return (await self.outcome()).refused("nothing saved to resume from")
        self.emit({"kind": "resumed", **self._position(events)})
        return await self._run(None, invocation)

    async def reconcile(self, call_id: str, outcome: str) -> StepOutcome:
        raise NotImplementedError  # contract only: glue.py

    async def snapshot(self, path: Path) -> StepOutcome:
        """A copy of the session's files (the SQLite file's bytes: no run holds it between steps)."""
        files = {name: base64.b64encode((self.scratch / name).read_bytes()).decode() for name in _files(self.scratch)}
        path.write_text(json.dumps(files), encoding="utf-8")
        return await self.outcome()

    async def restore(self, path: Path) -> StepOutcome:
        """The saved files delivered again, as a retried webhook would."""
        files = json.loads(path.read_text(encoding="utf-8"))
        for name in _files(self.scratch):
            (self.scratch / name).unlink()
        for name, data in files.items():
            (self.scratch / name).write_bytes(base64.b64decode(data))
        return await self.outcome()

    async def close(self) -> None:
        try:
            for toolset in self.toolsets:  # the MCP page's "Lifecycle Cleanup": await toolset.close() outside adk web
                await toolset.close()
        finally:
            await self.service.close()

    def _position(self, events: list[Event]) -> dict[str, Any]:
        """Where a resume continues: the first call of the last model turn with no result (asked about, or run), else a
        model turn; the approved calls are those a confirmation approved that have no result yet."""
        calls, answered = open_calls(events), confirmations(events)
        approved = sorted(c["id"] for c in calls if answered.get(c["id"]) is True)
        if not calls:
            return {"position": "model_turn", "pending_call": None, "approved_call_ids": approved}
        call = calls[0]
        asks = needs_approval(call["name"]) and not self.toolsets  # an McpToolset asks for no confirmation (its default)
        position = "awaiting_approval" if asks and call["id"] not in answered else "before_execute"
        if self.contract is not None and position == "before_execute":
            # contract glue: start
            position = resume_position(self.contract, call["id"], position)
            # contract glue: end
        pending = {"call_id": call["id"], "tool": call["name"], "args_hash": args_hash(call.get("args") or {})}
        return {"position": position, "pending_call": pending, "approved_call_ids": approved}


def mcp_status(response: dict[str, Any] | None) -> str:
    """``ok`` for an MCP ``CallToolResult`` (ADK hands the model its dump: ``content``, ``isError``, ...) that is no error;
    ``error`` for one with ``isError`` and for ADK's own answer to a call that failed under it (``{"error": ...}``)."""
    return "ok" if isinstance(response, dict) and "content" in response and response.get("isError") is False else "error"


def _files(scratch: Path) -> list[str]:
    """The session's files: ADK's SQLite file and this module's, and the glue's uncertain call and reconciles."""
    return sorted(p.name for p in scratch.iterdir() if p.name.startswith(DB) or p.name in (STATE, "uncertain.json", "reconcile.json"))


def _calls(event: Event) -> list[dict[str, Any]]:
    return [c.model_dump(mode="json") for c in event.get_function_calls()]


def latest_invocation(events: list[Event]) -> str | None:
    return events[-1].invocation_id if events else None


def requests(events: list[Event]) -> dict[str, dict[str, Any]]:
    """Original call id -> its latest confirmation request: ``confirmation_id``, ``invocation``, the call (``call``), the
    request's ``payload``, and whether it is ``open`` (the latest invocation's, and no user event answers it)."""
    answered = {r.id for e in events if e.author == "user" for r in e.get_function_responses()}
    out: dict[str, dict[str, Any]] = {}
    for event in events:
        for c in _calls(event):
            if c["name"] == CONFIRMATION and isinstance(original := (c.get("args") or {}).get("originalFunctionCall"), dict):
                payload = ((c["args"].get("toolConfirmation") or {}).get("payload")) or {}
                out[str(original.get("id"))] = {"confirmation_id": c["id"], "invocation": event.invocation_id, "call": original, "payload": payload,
                                           "open": event.invocation_id == latest_invocation(events) and c["id"] not in answered}
    return out


def confirmations(events: list[Event]) -> dict[str, bool]:
    """Original call id -> the answer a user event gave its confirmation request (the latest)."""
    by_request = {r["confirmation_id"]: call_id for call_id, r in requests(events).items()}
    return {by_request[r.id]: bool((r.response or {}).get("confirmed")) for e in events if e.author == "user"
            for r in e.get_function_responses() if r.name == CONFIRMATION and r.id in by_request}


def waiting(events: list[Event]) -> dict[str, dict[str, Any]]:
    """The open confirmation requests' calls, by original call id, in ADK's order."""
    return {call_id: r["call"] for call_id, r in requests(events).items() if r["open"]}


def open_calls(events: list[Event]) -> list[dict[str, Any]]:
    """The calls of the last model turn that no function response answers with a result (ADK's placeholder while a call
    waits for confirmation is no result)."""
    turns = [i for i, e in enumerate(events) if e.author != "user" and any(c["name"] != CONFIRMATION for c in _calls(e))]
    if not turns:
        return []
    done = {r.id for e in events[turns[-1] + 1 :] for r in e.get_function_responses() if r.id not in (e.actions.requested_tool_confirmations or {})}
    return [c for c in _calls(events[turns[-1]]) if c["name"] != CONFIRMATION and c["id"] not in done]


