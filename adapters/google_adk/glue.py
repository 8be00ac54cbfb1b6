"""Contract glue for ADK (see MAPPING.md): a ``before_tool_callback`` (ADK's documented place for a guardrail) that
sees the model's arguments before ADK validates them, runs ``admit`` on them, asks for a confirmation the way the docs
teach a tool to ask for one itself (``tool_context.request_confirmation``) for an admitted high-risk call and for a
valid call whose turn has one waiting (held: confirmed with the turn's decision), and answers the call itself with
``run_once_async`` under ``<session>/<call id>``; an uncertain call asks again until a reconcile. The step bound is a
``before_model_callback`` counting from the saved conversation (``turns_left``); ADK's ``ToolCallIntegrityPlugin``
stamps every stored call, so a call edited in the session store never runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from google.adk.agents.callback_context import CallbackContext
from google.adk.events.event import Event
from google.adk.plugins import ToolCallIntegrityPlugin
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from adapters.glue_blocks import Contract, Failed, Ok, Reconciled, Rejected, Replay, Uncertain, admit, held_approvals, run_once_async, turns_left, whole_turn
from adapters.held_decisions import HELD_FILE
from handwritten.canonical import canonical_json
from handwritten.policy import Decision
from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.protocol import Decision as HumanDecision
from harness.column_side.protocol import StepOutcome

from .model import CONFIRMATION, to_neutral
from .session import ADKSession, latest_invocation, requests
from .session import waiting as waiting_calls

HELD, UNCERTAIN = "held_with_turn", "uncertain"
UNCERTAIN_FILE = "uncertain.json"  # the call whose outcome is unknown, and the calls of its turn held behind it
_STATUS = {Ok: "ok", Reconciled: "reconciled", Replay: "replayed"}
INTEGRITY_KEY = b"contract-glue-integrity-key"  # the column's own secret: only the glue stamps the calls it stores


def guard(world: FixtureWorld, contract: Contract, statuses: dict[str, str], scratch: Path) -> Any:
    """The agent's ``before_tool_callback``: a dict it returns is the call's answer and ADK's tool never runs."""

    async def before_tool(tool: BaseTool, args: dict[str, Any], tool_context: ToolContext) -> dict[str, Any]:
        name, call_id, confirmation = tool.name, tool_context.function_call_id or "", tool_context.tool_confirmation
        verdict = admit(contract, name, call_id, _raw_args(tool_context, call_id, args), announce=confirmation is None)
        if isinstance(verdict, Rejected):
            statuses[call_id] = verdict.status
            return verdict.output
        if confirmation is None and (verdict.needs_approval or _sibling_waits(contract, tool_context, call_id)):
            return _ask(tool_context, {HELD: not verdict.needs_approval})
        if confirmation is not None and not confirmation.confirmed:
            statuses[call_id] = "rejected"
            return {"error": "rejected by the human"}

        if (uncertain := _read(scratch / UNCERTAIN_FILE)) and uncertain["call"] != call_id:  # a call before it awaits its reconcile
            _write(scratch / UNCERTAIN_FILE, uncertain | {"held": [*uncertain["held"], call_id]})  # (the turn's calls are tasks
            return _ask(tool_context, {HELD: True})  # that never suspend: that one has ended)
        return await run(world, contract, statuses, scratch, name, call_id, verdict.args) or _ask(tool_context, {UNCERTAIN: True})

    return before_tool


async def run(world: FixtureWorld, contract: Contract, statuses: dict[str, str], scratch: Path, name: str, call_id: str, args: Any) -> dict[str, Any] | None:
    """The admitted call run once under its key (``run_once_async``), as its answer; None while its outcome is unknown."""

    async def execute() -> Any:
        world.enter(name, call_id, args)
        return world.execute(name, call_id, args)

    done = await run_once_async(contract, name, call_id, args, execute, lambda c: _read(scratch / "reconcile.json").get(c))
    if isinstance(done, Uncertain):
        _write(scratch / UNCERTAIN_FILE, {"call": call_id, "held": []})
        return None
    statuses[call_id] = "error" if isinstance(done, Failed) else _STATUS[type(done)]
    output = json.loads(done.output) if isinstance(done, Replay) else {"error": done.error} if isinstance(done, Failed) else done.output
    return output if isinstance(output, dict) else {"result": output}


def _ask(tool_context: ToolContext, payload: dict[str, Any]) -> dict[str, Any]:
    """A confirmation asked for as a tool asks itself (``request_confirmation``); not a result for the model to act on."""
    tool_context.request_confirmation(hint="awaiting the human's decision", payload=payload)
    tool_context.actions.skip_summarization = True
    return {"error": "awaiting the human's decision"}


def _raw_args(tool_context: ToolContext, call_id: str, args: dict[str, Any]) -> Any:
    """The call's arguments as stored from the model (latest first: a call id may come again)."""
    calls = (c for e in reversed(tool_context.session.events) for c in e.get_function_calls())
    return next((c.args for c in calls if c.id == call_id and c.name != CONFIRMATION), args)


def _sibling_waits(contract: Contract, tool_context: ToolContext, call_id: str) -> bool:
    """Another valid call of this turn waits for a human."""
    turn = next(e for e in reversed(tool_context.session.events) if any(c.id == call_id for c in e.get_function_calls()))
    return any(c.id != call_id and c.name in contract.registry and contract.decide(c.name or "") is Decision.NEEDS_APPROVAL
               and contract.registry.validator(c.name or "").check(c.args or {}).ok for c in turn.get_function_calls())


def contract_app_options() -> dict[str, Any]:
    """ADK's own plugin that stamps each stored call and lets only a stamped one run."""
    return {"plugins": [ToolCallIntegrityPlugin(secret_key=INTEGRITY_KEY)]}


class StepBound(Exception):
    """The contract's step bound, reached before a model turn."""


def bound(contract: Contract) -> Any:
    """The agent's ``before_model_callback``: the step bound counted from the saved conversation (``turns_left``), so it
    holds across resumes and confirmations (ADK's ``max_llm_calls`` counts one ``run_async`` call, and 0 means none)."""

    def before_model(callback_context: CallbackContext, llm_request: Any) -> None:
        if turns_left(contract, roles(list(callback_context.session.events))) == 0:
            raise StepBound

    return before_model


class GlueSession(ADKSession):
    """The session with the contract's step bound, a turn decided as a whole, held calls and reconcile."""

    async def _run(self, message: Any, invocation_id: str | None) -> StepOutcome:
        (self.scratch / UNCERTAIN_FILE).unlink(missing_ok=True)
        try:
            return await super()._run(message, invocation_id)
        except StepBound:  # a terminal state, not an error
            self._set_state(status="stopped_max_steps")
            return StepOutcome("stopped_max_steps", "stopped_max_steps")

    async def outcome(self) -> StepOutcome:
        now = await super().outcome()
        uncertain = _read(self.scratch / UNCERTAIN_FILE).get("call")
        marked = payloads(await self.events())  # a held call waits for its turn's decision, an uncertain one for a reconcile
        waiting = [p for p in now.pending if not (marked.get(p.call_id, {}).get(HELD) or marked.get(p.call_id, {}).get(UNCERTAIN))]
        approved = held_approvals(self.scratch / HELD_FILE, [p.call_id for p in waiting])
        pending = tuple(p for p in waiting if p.call_id not in approved)
        status = "reconcile_required" if uncertain else now.status if waiting or now.status != "awaiting_approval" else "completed"
        return StepOutcome(status, status, pending=pending, uncertain_call=uncertain)

    async def decide(self, decisions: list[HumanDecision]) -> StepOutcome:
        """A turn decided as a whole (``whole_turn``: an approval is held until no call of the turn is undecided), with a
        go-ahead for the calls held with it."""
        events = await self.events()
        marked = payloads(events)
        waiting = [c for c in waiting_calls(events) if not marked.get(c, {}).get(HELD) and not marked.get(c, {}).get(UNCERTAIN)]
        now = whole_turn(self.scratch / HELD_FILE, waiting, decisions)
        if not now:
            return await self.outcome()
        held = [c for c, payload in marked.items() if payload.get(HELD) and c not in {d.call_id for d in now}]
        return await super().decide([*now, *(HumanDecision(c, True) for c in held)])

    async def reconcile(self, call_id: str, outcome: str) -> StepOutcome:
        """The human's outcome recorded for ``settle`` and the call settled by the glue (``confirmed`` stands for its
        result; ``not_executed`` runs it again under its key), then the calls held behind it run; each answer is sent as
        the call's ``FunctionResponse``, as a client answers a long-running call (ADK drops a second confirmation of a
        call it confirmed before as consumed, so a confirmation cannot carry it)."""
        assert self.contract is not None
        _write(self.scratch / "reconcile.json", _read(self.scratch / "reconcile.json") | {call_id: outcome})
        events, answers = await self.events(), []
        for held_id in [call_id, *_read(self.scratch / UNCERTAIN_FILE).get("held", ())]:  # and the calls held behind it
            call = next(c for e in reversed(events) for c in e.get_function_calls() if c.id == held_id and c.name != CONFIRMATION)
            verdict = admit(self.contract, call.name or "", held_id, call.args, announce=False)
            assert not isinstance(verdict, Rejected)  # it was admitted before it waited
            answer = await run(self.world, self.contract, self.statuses, self.scratch, call.name or "", held_id, verdict.args)
            if answer is None:  # still unknown: nothing to tell the model yet
                return await self.outcome()
            self.emit({"kind": "tool_result", "call_id": held_id, "status": self.statuses[held_id], "content": canonical_json(answer)})
            answers.append(types.Part(function_response=types.FunctionResponse(id=held_id, name=call.name, response=answer)))
        return await self._run(types.Content(role="user", parts=answers), latest_invocation(events))


def payloads(events: list[Event]) -> dict[str, dict[str, Any]]:
    """The payload of each confirmation the glue asked for that is still unanswered, by call id."""
    return {c: r["payload"] for c, r in requests(events).items() if r["open"] and r["payload"]}


def roles(events: list[Event]) -> list[str]:
    """The roles of the saved conversation, as the step bound counts them (``glue_blocks.turns_left``)."""
    return [m["role"] for m in to_neutral([e.content for e in events if e.content is not None])]


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _write(path: Path, value: dict[str, Any]) -> None:
    path.write_text(json.dumps(value), encoding="utf-8")
