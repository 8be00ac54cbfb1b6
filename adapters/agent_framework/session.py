"""One scenario's session on Agent Framework: agent runs on an ``AgentSession`` saved to the scratch directory after
every run with ``to_dict()`` and loaded with ``from_dict()`` (``agent_session.json``: the docs' persistence; a run that
raises or is killed saves nothing, so the file holds the session as the last finished run left it). ``run.json`` holds
what the session does not say: the status (``running`` during a run: a kill leaves it, read as ``crashed``) and the
approval requests the last run returned (``response.user_input_requests``), which a caller keeps to answer them.

A tool result is traced once it is in the messages a model call is sent (a chat middleware sees them) or in the saved
session. A decision is the response the docs build, ``request.to_function_approval_response(approved=...)``, sent as a
new run on the same session; a misused one is the response a confused caller builds.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_framework import Agent, AgentResponse, AgentSession, ChatContext, Content, FunctionInvocationContext, Message, chat_middleware, function_middleware

from adapters.approval_objects import named_call
from adapters.column import SessionContext
from adapters.glue_blocks import resume_position
from handwritten.canonical import args_hash
from harness.column_side.approver import edited_args
from harness.column_side.protocol import Decision, PendingCall, StepOutcome
from harness.records import RunStatus

from .model import to_neutral
from .tools import USER_KEY, needs_approval

SESSION, STATE, ASKED = "agent_session.json", "run.json", "requests.json"
FORGED_ID = "forged-approval-id"  # an approval id the framework never issued


class AFSession:
    """The session in the scratch directory; ``statuses`` is where the tools (and ``decide``) put each call's status."""

    agent: Agent[Any]  # built by the column around this session's middleware

    def __init__(self, context: SessionContext, statuses: dict[str, str]) -> None:
        self.contract, self.emit = context.contract, context.trace.emit
        self.scratch, self.statuses, self.scenario, self.world = context.scratch, statuses, context.scenario, context.world
        saved = history(self.load())
        self.reported = len(results(saved))  # results already traced
        self.statuses |= {c.function_call.call_id or "": "rejected" for m in saved for c in m.contents  # the human's rejections
                          if c.type == "function_approval_response" and not c.approved and c.function_call is not None}  # of earlier steps

    def load(self) -> AgentSession | None:
        path = self.scratch / SESSION
        return AgentSession.from_dict(json.loads(path.read_text(encoding="utf-8"))) if path.exists() else None

    def _save(self, session: AgentSession) -> None:
        (self.scratch / SESSION).write_text(json.dumps(session.to_dict()), encoding="utf-8")
        self._trace(history(session))

    def _trace(self, messages: list[Message]) -> None:
        """Trace the function results ``messages`` hold past those already traced."""
        delivered = results(messages)
        for content in delivered[self.reported :]:
            self.emit({"kind": "tool_result", "call_id": content.call_id, "status": self.statuses.get(content.call_id or "", "error"),
                       "content": to_neutral([Message(role="tool", contents=[content])])[0]["content"]})
        self.reported = max(self.reported, len(delivered))

    def middleware(self) -> list[Any]:
        """The agent's middleware: a chat middleware that traces the results each model call is sent, and a function
        middleware that only passes each call on: the framework hands a tool its call id (``ctx.metadata["call_id"]``,
        which the ledger counts by) only on the middleware path; it changes nothing else."""

        @chat_middleware
        async def delivered(context: ChatContext, call_next: Any) -> None:
            self._trace(list(context.messages))
            await call_next()

        @function_middleware
        async def identified(context: FunctionInvocationContext, call_next: Any) -> None:
            await call_next()

        return [delivered, identified]

    def _state(self) -> dict[str, Any]:
        path = self.scratch / STATE
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"status": "completed"}

    def _set_state(self, status: str, **more: Any) -> StepOutcome:
        (self.scratch / STATE).write_text(json.dumps({"status": status, **more}), encoding="utf-8")
        return self.outcome()

    def outcome(self) -> StepOutcome:
        state = self._state()
        status: RunStatus = "crashed" if state["status"] == "running" else state["status"]
        pending = tuple(PendingCall(p["call_id"], p["tool"], p["args"]) for p in state.get("pending", ()))
        return StepOutcome(status, status, pending=pending, uncertain_call=state.get("uncertain"))

    async def _run(self, messages: Any, session: AgentSession | None = None) -> StepOutcome:
        """One agent run on the saved session (or ``session``), saved when it returns."""
        session = session or self.load() or self.agent.create_session(session_id=self.scenario.session_id)
        self._set_state("running")
        try:
            response = await self._agent_run(messages, session)
        except Exception:
            self._set_state("error")
            raise
        if response is None:
            # contract glue: start
            return self.outcome()  # the glue stopped the run, and saved why
            # contract glue: end
        self._save(session)
        outcome = self._finish(response.user_input_requests)
        self.world.faults.saved()  # the session, the requests kept and the status: the run's save is whole
        return outcome

    async def _agent_run(self, messages: Any, session: AgentSession) -> AgentResponse[Any] | None:
        return await self.agent.run(messages, session=session, function_invocation_kwargs={USER_KEY: self.scenario.user})

    def _finish(self, requests: list[Content]) -> StepOutcome:
        """The run's approval requests kept (a caller keeps what it was shown); those the human answers are pending, the
        others (only the contract's glue has such) are held."""
        kept = self.asked() | {r.function_call.call_id or "": r for r in requests if r.function_call is not None}
        (self.scratch / ASKED).write_text(json.dumps({c: r.to_dict() for c, r in kept.items()}), encoding="utf-8")
        calls = [r.function_call for r in requests if r.function_call is not None]
        pending = [{"call_id": c.call_id, "tool": c.name, "args": args_of(c)} for c in calls if self.asks_human(c)]
        held = [c.call_id for c in calls if not self.asks_human(c)]
        return self._set_state("awaiting_approval" if pending else "completed", pending=pending, held=held)

    def asks_human(self, call: Content) -> bool:
        return True  # the framework asks the human about every request it makes

    async def deliver(self, text: str) -> StepOutcome:
        """A new run on the saved session with the user's text, as the docs run an agent."""
        return await self._run(text)

    async def decide(self, decisions: list[Decision]) -> StepOutcome:
        """Each decision as the response to the approval request it answers, built as the docs build it, in one new run
        on the same session. A caller answers the requests it was shown: a decision on a call the framework never asked
        about is never handed over. A misused approval is built as a caller would: from the request of the call it
        names (``other_call``, ``reused``), with the arguments edited (``other_args``), with an id the framework never
        issued (``forged``), or sent on another session (``other_session``: a new one, which the caller does not keep)."""
        session, asked = self.load(), self.asked()
        targets = [named_call(self.scenario, d).call_id if d.misuse in ("other_call", "reused") else d.call_id for d in decisions]
        if missing := [d.call_id for d, target in zip(decisions, targets, strict=True) if target not in asked]:
            self.emit({"kind": "decision_without_call", "call_ids": missing})
            return dataclasses.replace(self.outcome(), ran=False)
        self.statuses |= {d.call_id: "rejected" for d in decisions if not d.approve}
        answers = [response(asked[target], d) for d, target in zip(decisions, targets, strict=True)]
        if any(d.misuse == "other_session" for d in decisions):  # a run on a session the caller does not keep
            await self._agent_run([Message(role="user", contents=answers)], self.agent.create_session(session_id=f"{self.scenario.session_id}-other"))
            return self.outcome()
        return await self._run([Message(role="user", contents=answers)], session)

    async def resume(self) -> StepOutcome:
        """A run on the saved session with no new input: the framework's own continuation of a session."""
        session = self.load()
        if session is None:  # no run ever finished: nothing was saved
            return self.outcome().refused("nothing saved to resume from")
        self.emit({"kind": "resumed", **self._position(history(session))})
        return await self._run(None, session)

    async def reconcile(self, call_id: str, outcome: str) -> StepOutcome:
        raise NotImplementedError  # contract only: glue.py

    def snapshot(self, path: Path) -> StepOutcome:
        """A copy of the session's files."""
        path.write_text(json.dumps({n: (self.scratch / n).read_text(encoding="utf-8") for n in self.files() if (self.scratch / n).exists()}), encoding="utf-8")
        return self.outcome()

    def restore(self, path: Path) -> StepOutcome:
        """The saved files delivered again, as a retried webhook would."""
        files = json.loads(path.read_text(encoding="utf-8"))
        for name in self.files():
            (self.scratch / name).unlink(missing_ok=True)
            if name in files:
                (self.scratch / name).write_text(files[name], encoding="utf-8")
        self.reported = len(results(history(self.load())))
        return self.outcome()

    def files(self) -> tuple[str, ...]:
        return SESSION, STATE, ASKED, "decisions.json", "reconcile.json"  # and the contract glue's, which only it writes

    def asked(self) -> dict[str, Content]:
        """Call id -> the latest approval request a run returned for it (``user_input_requests``), as the caller kept it."""
        path = self.scratch / ASKED
        return {c: Content.from_dict(r) for c, r in json.loads(path.read_text(encoding="utf-8")).items()} if path.exists() else {}

    async def close(self) -> None:
        """Close what the agent opened (``Agent.close``, what leaving ``async with Agent(...)`` does): the MCP tool it
        connected on its first run, in the ``mcp`` mode; nothing else stays open between steps."""
        await self.agent.close()

    def _position(self, messages: list[Message], decided: dict[str, bool] | None = None) -> dict[str, Any]:
        """Where a resume continues: the first call of the last model turn with no result (asked about again unless
        ``decided``, or run), else a model turn; the approved calls are the high-risk ones ``decided`` approves."""
        calls, decided = open_calls(messages), decided or {}
        approved = sorted(c.call_id or "" for c in calls if decided.get(c.call_id or "") and needs_approval(c.name or ""))
        if not calls:
            return {"position": "model_turn", "pending_call": None, "approved_call_ids": approved}
        call = calls[0]
        position = "awaiting_approval" if needs_approval(call.name or "") and call.call_id not in decided else "before_execute"
        if self.contract is not None and position == "before_execute":
            # contract glue: start
            position = resume_position(self.contract, call.call_id or "", position)
            # contract glue: end
        pending = {"call_id": call.call_id, "tool": call.name, "args_hash": args_hash(args_of(call))}
        return {"position": position, "pending_call": pending, "approved_call_ids": approved}


def response(request: Content, decision: Decision) -> Content:
    """The approval response for ``request``: the docs' ``to_function_approval_response``, or a misused one."""
    call = request.function_call
    assert call is not None
    if decision.misuse == "other_args":
        edited = Content.from_function_call(call_id=call.call_id or "", name=call.name or "", arguments=edited_args(args_of(call)), id=call.id)
        return Content.from_function_approval_response(approved=True, id=request.id or "", function_call=edited)
    if decision.misuse == "forged":
        return Content.from_function_approval_response(approved=True, id=FORGED_ID, function_call=call)
    return request.to_function_approval_response(approved=decision.approve)


def args_of(call: Content) -> dict[str, Any]:
    """A function call's arguments as a mapping (text that is not a JSON object: none)."""
    arguments = call.arguments
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return {}
    return dict(arguments) if isinstance(arguments, Mapping) else {}


def history(session: AgentSession | None) -> list[Message]:
    """The session's conversation as the framework's in-memory history provider keeps it in the session's state."""
    return list(((session.state.get("in_memory") or {}).get("messages") or []) if session else [])


def results(messages: list[Message]) -> list[Content]:
    return [c for m in messages for c in m.contents if c.type == "function_result"]


def open_calls(messages: list[Message]) -> list[Content]:
    """The calls of the last model turn that no function result answers."""
    last = max((i for i, m in enumerate(messages) if m.role == "assistant" and any(c.type == "function_call" for c in m.contents)), default=None)
    if last is None:
        return []
    answered = {c.call_id for c in results(messages[last + 1 :])}
    return [c for c in messages[last].contents if c.type == "function_call" and c.call_id not in answered]
