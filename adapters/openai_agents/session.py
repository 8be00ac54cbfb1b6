"""One session of the agent, as the driver's steps drive it: ``Runner.run`` over a ``SQLiteSession``.

The session id is the ``SQLiteSession`` id (conversation history in ``session.sqlite``);
a paused run is the SDK's ``RunState``: ``result.to_state().to_json()`` saved to
``run_state.json`` when the run pauses, ``await RunState.from_json(agent, data)`` in the
next process, ``state.approve(item)`` / ``state.reject(item)``, then
``Runner.run(agent, state)``. The SDK persists nothing else between steps, so this
session also keeps ``status.json``: ``running`` before each ``Runner.run`` and the
outcome after it (a process killed inside a run leaves ``running`` behind: ``crashed``).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from agents import Agent, MaxTurnsExceeded, Runner, RunState, SQLiteSession
from agents.items import ToolApprovalItem, ToolCallOutputItem

from handwritten.canonical import args_hash
from harness.approver import parsed_args

from .glue import Contract, ReconcileRequired

Emit = Callable[[dict[str, Any]], None]
STATE = "run_state.json"  # the paused run's RunState JSON
STATUS = "status.json"


@dataclass(frozen=True)
class Outcome:
    """What a step ended with: the session's status, or ``refused`` with the reason; the calls awaiting approval."""

    status: str
    session_status: str
    refusal: str | None
    pending: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "session_status": self.session_status, "refusal": self.refusal, "pending": self.pending}


def call_of(item: ToolApprovalItem) -> dict[str, Any]:
    """The tool call an approval item stands for: id, tool, parsed arguments."""
    raw = item.raw_item if isinstance(item.raw_item, dict) else item.raw_item.model_dump()
    return {"call_id": raw["call_id"], "tool": raw["name"], "args": parsed_args(raw["arguments"])}


class AgentSession:
    """The scenario's session in ``scratch``; ``contract`` is the glue (None in ``defaults``)."""

    def __init__(self, agent: Agent[Any], session_id: str, scratch: Path, emit: Emit, contract: Contract | None, run_options: dict[str, Any]) -> None:
        self.agent = agent
        self.history = SQLiteSession(session_id, str(scratch / "session.sqlite"))
        self.state_file = scratch / STATE
        self.status_file = scratch / STATUS
        self.emit = emit
        self.contract = contract
        self.run_options = run_options  # Runner.run arguments: none in defaults (max_turns, error handling: the SDK's)

    # ---------------------------------------------------------------- saved state

    def status(self) -> str:
        if not self.status_file.exists():
            return "completed"
        status = json.loads(self.status_file.read_text(encoding="utf-8"))["status"]
        return "crashed" if status == "running" else status

    def _set_status(self, status: str) -> None:
        self.status_file.write_text(json.dumps({"status": status}), encoding="utf-8")

    async def saved_state(self) -> RunState[Any, Any] | None:
        if not self.state_file.exists():
            return None
        return await RunState.from_json(self.agent, json.loads(self.state_file.read_text(encoding="utf-8")))

    def save_state(self, state: RunState[Any, Any]) -> None:
        self.state_file.write_text(json.dumps(state.to_json()), encoding="utf-8")

    async def pending(self) -> list[dict[str, Any]]:
        state = await self.saved_state()
        return sorted((call_of(i) for i in state.get_interruptions()), key=lambda c: c["call_id"]) if state else []

    async def outcome(self, refusal: str | None = None) -> Outcome:
        status = self.status()
        pending = await self.pending() if status == "awaiting_approval" else []
        return Outcome("refused" if refusal else status, status, refusal, pending)

    # ---------------------------------------------------------------- steps

    async def run(self, payload: Any) -> Outcome:
        """``Runner.run`` from ``payload`` (an input, or a ``RunState``) and record where it stopped."""
        self._set_status("running")
        try:
            result = await Runner.run(self.agent, payload, session=self.history, **self.run_options)
        except MaxTurnsExceeded as exc:
            self._results(exc.run_data.new_items if exc.run_data else [])
            self.state_file.unlink(missing_ok=True)
            return await self._finish("stopped_max_steps")
        except Exception as exc:  # contract glue stopped on an uncertain call (the SDK wraps it in a UserError)
            if not _caused_by(exc, ReconcileRequired):
                raise
            return await self._finish("reconcile_required")
        self._results(result.new_items)
        if result.interruptions:
            self.save_state(result.to_state())  # the documented way to survive a restart: save the paused run
            return await self._finish("awaiting_approval")
        self.state_file.unlink(missing_ok=True)
        return await self._finish("completed")

    async def _finish(self, status: str) -> Outcome:
        self._set_status(status)
        return await self.outcome()

    def _results(self, items: list[Any]) -> None:
        outputs = [i.raw_item for i in items if isinstance(i, ToolCallOutputItem)]
        for raw in sorted((r if isinstance(r, dict) else r.model_dump() for r in outputs), key=lambda r: r["call_id"]):
            status = self.contract.status_of(raw["call_id"]) if self.contract else "ok"
            self.emit({"kind": "tool_result", "call_id": raw["call_id"], "status": status, "content": _text(raw["output"])})

    async def deliver(self, user_input: str) -> Outcome:
        return await self.run(user_input)

    async def decide(self, call_id: str, approve: bool, reason: str | None = None) -> Outcome:
        """Approve or reject the pending call ``call_id`` on the saved RunState, then run on."""
        state = await self.saved_state()
        item = next((i for i in state.get_interruptions() if call_of(i)["call_id"] == call_id), None) if state else None
        if item is None:  # an approval item names its call: with none pending for it there is nothing to decide
            self.emit({"kind": "decision_without_item", "call_id": call_id})
            return await self.outcome()
        if approve:
            state.approve(item)
            self.emit({"kind": "approval_granted", "call_id": call_id})
        else:
            state.reject(item, rejection_message=reason)
        # contract glue: start
        if self.contract is not None:  # the adapter's checkpoint: the decision survives a crash in the run below
            self.save_state(state)
        # contract glue: end
        return await self.run(state)

    async def resume(self) -> Outcome:
        """Continue in this fresh process: from the saved RunState, else from the session's history."""
        state = await self.saved_state()
        if state is not None:
            self.emit({"kind": "resumed", **self.position(state)})
            return await self.run(state)
        if self.status() != "crashed":  # nothing was running: nothing to resume
            return await self.outcome()
        self.emit({"kind": "resumed", "position": "model_turn", "pending_call": None, "approved_call_ids": []})
        return await self.run([])

    def position(self, state: RunState[Any, Any]) -> dict[str, Any]:
        """Where a resume from this saved RunState continues: its open approvals, and which of them are approved."""
        calls = [call_of(i) for i in state.get_interruptions()]
        context = state._context  # the run context holds the approval decisions the state carries
        approved = sorted(c["call_id"] for c in calls if context is not None and context.is_tool_approved(c["tool"], c["call_id"]))
        position = "before_execute" if calls and len(approved) == len(calls) else "awaiting_approval"
        call = calls[0] if calls else None
        # contract glue: start
        if self.contract is not None and call is not None and position == "before_execute":
            position = self.contract.position_of(call["call_id"], position)
        # contract glue: end
        pending = {"call_id": call["call_id"], "tool": call["tool"], "args_hash": args_hash(call["args"])} if call else None
        return {"position": position, "pending_call": pending, "approved_call_ids": approved}

    def snapshot(self, path: Path) -> None:
        """The saved state is the SDK's RunState JSON: keep a copy."""
        path.parent.mkdir(exist_ok=True)
        shutil.copyfile(self.state_file, path)

    async def restore(self, path: Path) -> Outcome:
        """Deliver the saved state again: the next decision applies to this copy."""
        shutil.copyfile(path, self.state_file)
        self._set_status("awaiting_approval")
        return await self.outcome()


def _caused_by(exc: BaseException | None, kind: type[BaseException]) -> bool:
    while exc is not None:
        if isinstance(exc, kind):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _text(output: Any) -> str:
    return output if isinstance(output, str) else json.dumps(output)
