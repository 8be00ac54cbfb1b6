"""One session of the agent, as the driver's steps drive it; the session id is ``AgentState.session_id``.

AgentScope keeps a session in memory, in the pydantic ``AgentState``; its documentation
saves it with ``model_dump_json`` and loads it with ``model_validate_json``. Every step
loads the state from ``agent_state.json``, streams ``agent.reply_stream`` (the inputs: a
user ``Msg``, a ``UserConfirmResultEvent``, or None to continue) in ``asyncio.run``,
writes what it saw to the trace (permission decisions, tool results, confirmation
requests) and saves the state when the reply returns, as the docs teach; nothing is
saved mid-reply (``contract``'s glue adds its checkpoints). The step's status goes to
``session.json`` next to the state. A reply the agent refuses before it starts (it
raises ``ValueError`` from its incoming-event check) is the step's refusal, in
AgentScope's own words.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentscope.event import (
    ConfirmResult,
    ReplyFinishedReason,
    RequireUserConfirmEvent,
    ToolResultEndEvent,
    ToolResultTextDeltaEvent,
    UserConfirmResultEvent,
)
from agentscope.message import Msg, ToolCallBlock, ToolCallState, UserMsg
from agentscope.state import AgentState

from handwritten.canonical import args_hash, canonical_json
from handwritten.idempotency import RecordState
from harness.scenarios import Scenario

from .agent import AGENT_NAME
from .glue import Contract, ReconcileRequired, StepBound
from .tools import Emit

STATE = "agent_state.json"
STATUS = "session.json"
_RESULT_STATUS = {"success": "ok", "error": "error", "denied": "refused", "interrupted": "error"}


@dataclass(frozen=True)
class Outcome:
    """What a step ended with: the session's status, or ``refused`` with the reason; the calls awaiting approval."""

    status: str
    session_status: str
    refusal: str | None
    pending: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "session_status": self.session_status, "refusal": self.refusal, "pending": self.pending}


def load_state(scratch: Path, session_id: str) -> AgentState:
    """The saved session, or a new one under the scenario's session id."""
    path = scratch / STATE
    if path.exists():
        return AgentState.model_validate_json(path.read_text(encoding="utf-8"))
    return AgentState(session_id=session_id)


def save_state(scratch: Path, state: AgentState) -> None:
    """Replace the saved session in one rename, so a kill never leaves half a file."""
    staging = scratch / f".{STATE}.new"
    staging.write_text(state.model_dump_json(), encoding="utf-8")
    os.replace(staging, scratch / STATE)


def open_calls(state: AgentState) -> list[ToolCallBlock]:
    """The tool calls of the agent's latest message that have no result yet."""
    last = state.context[-1] if state.context else None
    if last is None or last.role != "assistant" or last.name != AGENT_NAME:
        return []
    answered = {b.id for b in last.get_content_blocks("tool_result")}
    return [c for c in last.get_content_blocks("tool_call") if c.id not in answered]


class AgentSession:
    """The agent over the saved state in ``scratch``; ``contract`` is the glue's state in ``contract`` mode (None in ``defaults``)."""

    def __init__(self, agent: Any, scratch: Path, scenario: Scenario, gated: list[str], emit: Emit, contract: Contract | None = None) -> None:
        self.agent = agent
        self.scratch = scratch
        self.scenario = scenario
        self.gated = set(gated)  # the tools a human confirms
        self.emit = emit
        self.contract = contract

    @property
    def state(self) -> AgentState:
        return self.agent.state

    def run(self, inputs: Any) -> Outcome:
        """Stream one reply from ``inputs`` and report where it stopped; the state is saved when it returns."""
        try:
            status = asyncio.run(self._stream(inputs))  # a loop per step: never shared across the fork
        except _Refused as refused:
            return self.outcome(refusal=refused.reason)
        save_state(self.scratch, self.state)
        (self.scratch / STATUS).write_text(json.dumps({"status": status}), encoding="utf-8")
        return self.outcome()

    async def _stream(self, inputs: Any) -> str:
        texts: dict[str, str] = {}
        status = "completed"
        started = False
        try:
            try:
                async for item in self.agent.reply_stream(inputs, yield_final_msg=True):
                    started = True
                    match item:
                        case ToolResultTextDeltaEvent():
                            texts[item.tool_call_id] = texts.get(item.tool_call_id, "") + item.delta
                        case ToolResultEndEvent():
                            result_status = item.metadata.get("status") or _RESULT_STATUS[str(item.state)]
                            self.emit({"kind": "tool_result", "call_id": item.tool_call_id, "status": result_status, "content": texts.pop(item.tool_call_id, "")})
                        case RequireUserConfirmEvent():
                            self.emit({"kind": "confirmation_requested", "call_ids": [c.id for c in item.tool_calls]})
                        case Msg() if item.finished_reason == ReplyFinishedReason.EXCEED_MAX_ITERS:
                            status = "stopped_max_steps"
            # contract glue: start
            except* ReconcileRequired:
                status = "reconcile_required"
            except* StepBound:
                status = "stopped_max_steps"
            # contract glue: end
        except ValueError as exc:
            if started:
                raise
            # The agent checks an incoming event (or its absence) before it starts a reply.
            raise _Refused("agentscope: " + str(exc).split(":")[0].rstrip(".")) from exc
        return status

    def deliver(self, user_input: str) -> Outcome:
        return self.run(UserMsg(name="user", content=user_input))

    def decide(self, call_id: str, confirmed: bool) -> Outcome:
        """Answer the confirmation request the way the docs teach: a ``ConfirmResult`` naming the tool call."""
        asking = {c.id: c for c in self.state.get_awaiting_tool_calls(AGENT_NAME)}
        call = asking.get(call_id) or self._scripted_block(call_id)  # AgentScope itself decides about a call it is not asking for
        if confirmed:
            self.emit({"kind": "approval_granted", "call_id": call_id})
        event = UserConfirmResultEvent(reply_id=self.state.reply_id, confirm_results=[ConfirmResult(confirmed=confirmed, tool_call=call, rules=None)])
        return self.run(event)

    def _scripted_block(self, call_id: str) -> ToolCallBlock:
        call = self.scenario.scripted_call(call_id)
        arguments = call["arguments"] if isinstance(call["arguments"], str) else canonical_json(call["arguments"])
        return ToolCallBlock(id=call_id, name=call["name"], input=arguments)

    def resume(self) -> Outcome:
        """Continue from the saved state in this fresh process (``reply(None)``), saying from where."""
        self.emit({"kind": "resumed", **self.position()})
        return self.run(None)

    def position(self) -> dict[str, Any]:
        """Where a resume continues, read from the saved state (and, in contract mode, the glue's records)."""
        calls = open_calls(self.state)
        if not calls:
            return {"position": "model_turn", "pending_call": None, "approved_call_ids": []}
        if any(c.state == ToolCallState.ASKING for c in calls):
            position = "awaiting_approval"
        else:
            position = "before_execute"
        call = self._intended(calls)
        # contract glue: start
        if self.contract is not None and position == "before_execute":
            record = self.contract.idempotency.get(self.contract.key(call.id))
            if record is not None and record.state is RecordState.COMPLETED:
                position = "after_execute"
            elif record is not None and record.state is not RecordState.FAILED:
                position = "reconcile"
        # contract glue: end
        approved = sorted(c.id for c in calls if c.state == ToolCallState.ALLOWED and c.name in self.gated)
        pending = {"call_id": call.id, "tool": call.name, "args_hash": args_hash(_args(call))}
        return {"position": position, "pending_call": pending, "approved_call_ids": approved}

    def _intended(self, calls: list[ToolCallBlock]) -> ToolCallBlock:
        """The call the run was about to execute: the glue's last intent still open, else the first open call."""
        intended = calls[0]
        # contract glue: start
        if self.contract is not None and self.contract.intents.exists():
            by_id = {c.id: c for c in calls}
            for line in self.contract.intents.read_text(encoding="utf-8").splitlines():
                intended = by_id.get(json.loads(line)["call_id"], intended)
        # contract glue: end
        return intended

    def snapshot(self, name: str) -> Outcome:
        """Keep a copy of the saved session (AgentScope keeps no history of its own)."""
        target = self.scratch / "snapshots" / name
        target.mkdir(parents=True, exist_ok=True)
        for file in (STATE, STATUS):
            if (self.scratch / file).exists():
                shutil.copy(self.scratch / file, target / file)
        return self.outcome()

    def restore(self, name: str) -> Outcome:
        """Deliver the saved state again: the snapshot's copy becomes the session's file."""
        for file in (STATE, STATUS):
            shutil.copy(self.scratch / "snapshots" / name / file, self.scratch / file)
        self.agent.state = load_state(self.scratch, self.scenario.session_id)
        return self.outcome()

    def outcome(self, refusal: str | None = None) -> Outcome:
        status_file = self.scratch / STATUS
        status = json.loads(status_file.read_text(encoding="utf-8"))["status"] if status_file.exists() else "completed"
        asking = self.state.get_awaiting_tool_calls(AGENT_NAME)
        pending: list[dict[str, Any]] = []
        if asking:
            status = "awaiting_approval"
            pending = [{"call_id": c.id, "tool": c.name, "args": _args(c)} for c in asking]
        return Outcome("refused" if refusal else status, status, refusal, pending)


class _Refused(Exception):
    """The agent refused a delivery before it started the reply."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _args(call: ToolCallBlock) -> Any:
    """A call's arguments as parsed JSON (its raw text when it does not parse)."""
    try:
        return json.loads(call.input)
    except json.JSONDecodeError:
        return call.input
