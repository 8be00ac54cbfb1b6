"""One session of the agent, as the driver's steps drive it; the session id is ``AgentState.session_id``.

AgentScope keeps a session in memory, in the pydantic ``AgentState``; every step loads it from
``agent_state.json`` (``model_validate_json``), streams ``agent.reply_stream`` (the inputs: a
user ``Msg``, a ``UserConfirmResultEvent``, or None to continue) on the step's event loop,
writes what it saw to the trace (permission decisions, tool results, confirmation requests)
and saves the state (``model_dump_json``) when the reply returns; nothing is saved mid-reply
(``contract``'s glue adds its saves). The step's status goes to ``session.json`` next to the
state. A reply the agent refuses before it starts (``ValueError`` from its incoming-event
check) is the step's refusal, in AgentScope's own words.

Decisions reach AgentScope one call at a time, each as its own ``UserConfirmResultEvent`` with
one ``ConfirmResult`` naming its tool call, the way AgentScope's own web UI answers a prompt:
AgentScope accepts confirmations for any subset of the calls that ask, in any order.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
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

from adapters.approval_objects import named_call
from handwritten.canonical import args_hash, canonical_json
from handwritten.tools import RiskClass
from harness.column_side.protocol import Decision, PendingCall, StepOutcome
from harness.fixture_tools import FIXTURE_TOOLS
from harness.records import RunStatus
from harness.scenarios import Scenario

from .agent import AGENT_NAME
from .model import ToolNames
from .tools import Emit

STATE = "agent_state.json"
STATUS = "session.json"
RESULT_STATUS = {"success": "ok", "error": "error", "denied": "refused", "interrupted": "error"}


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
    """The agent over the saved state in ``scratch`` (``contract`` mode: ``glue_session.ContractSession``)."""

    def __init__(self, agent: Any, scratch: Path, scenario: Scenario, emit: Emit, after_save: Callable[[], None], names: ToolNames | None = None) -> None:
        self.agent = agent
        self.after_save = after_save  # the fault plan's state-save hook, once a reply's state and status are saved
        self.scratch = scratch
        self.scenario = scenario
        self.emit = emit
        self.names = names or ToolNames()  # a call's tool as the driver names it, from the name AgentScope gave the model
        self.traced: set[str] = set()  # in a reply: the calls whose result it began with or traced

    @property
    def state(self) -> AgentState:
        return self.agent.state

    async def run(self, inputs: Any) -> StepOutcome:
        """Stream one reply from ``inputs`` and report where it stopped; the state is saved when it returns."""
        try:
            status = await self._stream(inputs)
        except _Refused as refused:
            return self.outcome().refused(refused.reason)
        save_state(self.scratch, self.state)
        (self.scratch / STATUS).write_text(json.dumps(status), encoding="utf-8")
        self.after_save()
        return self.outcome()

    async def _stream(self, inputs: Any) -> dict[str, Any]:
        texts: dict[str, str] = {}
        status: dict[str, Any] = {"status": "completed"}
        started = False
        self.traced = {b.id for b in self.state.context[-1].get_content_blocks("tool_result")} if self.state.context else set()
        try:
            async for item in self.agent.reply_stream(inputs, yield_final_msg=True):
                started = True
                match item:
                    case ToolResultTextDeltaEvent():
                        texts[item.tool_call_id] = texts.get(item.tool_call_id, "") + item.delta
                    case ToolResultEndEvent():
                        result_status = item.metadata.get("status") or RESULT_STATUS[str(item.state)]
                        self.emit({"kind": "tool_result", "call_id": item.tool_call_id, "status": result_status, "content": texts.pop(item.tool_call_id, "")})
                        self.traced.add(item.tool_call_id)
                    case RequireUserConfirmEvent():
                        self.emit({"kind": "confirmation_requested", "call_ids": [c.id for c in item.tool_calls]})
                    case Msg() if item.finished_reason == ReplyFinishedReason.EXCEED_MAX_ITERS:
                        status = {"status": "stopped_max_steps"}
        except ValueError as exc:
            if started:
                raise
            # The agent checks an incoming event (or its absence) before it starts a reply.
            raise _Refused("agentscope: " + str(exc).split(":")[0].rstrip(".")) from exc
        return status

    async def deliver(self, text: str) -> StepOutcome:
        return await self.run(UserMsg(name="user", content=text))

    async def decide(self, decisions: list[Decision]) -> StepOutcome:
        """Each decision as a ``ConfirmResult`` naming its own tool call, in one ``UserConfirmResultEvent``."""
        asking = {c.id: c for c in self.state.get_awaiting_tool_calls(AGENT_NAME)}
        # A call that is not asking goes in as the driver named it: AgentScope itself refuses it.
        results = [ConfirmResult(confirmed=d.approve, tool_call=self._tool_call(d, asking), rules=None) for d in decisions]
        return await self.run(UserConfirmResultEvent(reply_id=self.state.reply_id, confirm_results=results))

    def _tool_call(self, decision: Decision, asking: dict[str, ToolCallBlock]) -> ToolCallBlock:
        """The ``tool_call`` a confirmation names: the asking call's block, or for a misuse the block the misuse names
        (another call's; this call's with its ``input`` edited)."""
        own = asking.get(decision.call_id)
        if decision.misuse is None:
            return own or self._scripted_block(decision.call_id)
        named = named_call(self.scenario, decision, PendingCall(own.id, self.names.tool(own.name), _args(own)) if own is not None else None)
        if decision.misuse != "other_args" and named.call_id in asking:
            return asking[named.call_id]
        return ToolCallBlock(id=named.call_id, name=self.names.given(named.tool), input=named.args if isinstance(named.args, str) else canonical_json(named.args))

    def _scripted_block(self, call_id: str) -> ToolCallBlock:
        call = self.scenario.scripted_call(call_id)
        arguments = call["arguments"] if isinstance(call["arguments"], str) else canonical_json(call["arguments"])
        return ToolCallBlock(id=call_id, name=self.names.given(call["name"]), input=arguments)

    async def resume(self) -> StepOutcome:
        """Continue from the saved state in this fresh process (``reply(None)``), saying from where."""
        self.emit({"kind": "resumed", **self.position()})
        return await self.run(None)

    def position(self) -> dict[str, Any]:
        """Where a resume continues, read from the saved state (and, in contract mode, the glue's records)."""
        calls = open_calls(self.state)
        if not calls:
            return {"position": "model_turn", "pending_call": None, "approved_call_ids": []}
        position = "awaiting_approval" if any(c.state == ToolCallState.ASKING for c in calls) else "before_execute"
        call, position = self._refine(calls, position)
        approved = sorted(c.id for c in calls if c.state == ToolCallState.ALLOWED and FIXTURE_TOOLS[self.names.tool(c.name)].risk is RiskClass.HIGH_RISK)
        pending = {"call_id": call.id, "tool": self.names.tool(call.name), "args_hash": args_hash(_args(call))}
        return {"position": position, "pending_call": pending, "approved_call_ids": approved}

    def _refine(self, calls: list[ToolCallBlock], position: str) -> tuple[ToolCallBlock, str]:
        """The call a resume continues with, and its position: AgentScope runs the first open call first."""
        return calls[0], position

    async def reconcile(self, call_id: str, outcome: str) -> StepOutcome:
        """Never reached in ``defaults``: the base refuses a reconcile there (nothing in AgentScope records an uncertain call)."""
        raise NotImplementedError("reconcile is contract glue: glue_session.ContractSession")

    def snapshot(self, path: Path) -> StepOutcome:
        """Keep a copy of the saved session and its status (AgentScope keeps no history of its own)."""
        saved = {name: (self.scratch / name).read_text(encoding="utf-8") for name in (STATE, STATUS) if (self.scratch / name).exists()}
        path.write_text(json.dumps(saved), encoding="utf-8")
        return self.outcome()

    def restore(self, path: Path) -> StepOutcome:
        """Deliver the saved state again: the snapshot's copy becomes the session's file."""
        for name, text in json.loads(path.read_text(encoding="utf-8")).items():
            (self.scratch / name).write_text(text, encoding="utf-8")
        self.agent.state = load_state(self.scratch, self.scenario.session_id)
        return self.outcome()

    def outcome(self) -> StepOutcome:
        asking = self.state.get_awaiting_tool_calls(AGENT_NAME)
        status: RunStatus = "awaiting_approval" if asking else self.saved_status()["status"]
        return StepOutcome(status, status, pending=tuple(PendingCall(c.id, self.names.tool(c.name), _args(c)) for c in asking))

    def saved_status(self) -> dict[str, Any]:
        """How the last reply ended, as ``run`` wrote it (a new session has completed nothing yet)."""
        status_file = self.scratch / STATUS
        return json.loads(status_file.read_text(encoding="utf-8")) if status_file.exists() else {"status": "completed"}

    async def close(self) -> None:
        """Nothing to release: the state and status files are written whole when a reply returns (the ``mcp`` mode's
        session closes its MCP client: ``mcp.McpAgentSession``)."""


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
