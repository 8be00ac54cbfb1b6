"""One session of the agent, as the driver's steps drive it: ``Runner.run`` over a ``SQLiteSession``.

What the SDK saves is all a step finds: the conversation in ``session.sqlite`` (``SQLiteSession``, its
id the scenario's session id) and, while a run is paused for approval, the paused run's ``RunState``
JSON in ``run_state.json``: ``result.to_state().to_json()`` when a result has interruptions (the docs'
approval loop), gone when a run ends without them (nothing is pending). A step reads them afresh:

- ``deliver``: ``Runner.run(agent, input, session=...)``;
- ``decide``: ``await RunState.from_json(agent, data)``, ``state.approve(item)`` /
  ``state.reject(item, rejection_message=...)`` on the ``ToolApprovalItem`` of each named call, then
  ``Runner.run(agent, state, session=...)``; a call left undecided pauses the run again (the docs:
  "You do not need to resolve every pending approval in the same pass");
- ``resume``: from the saved ``RunState`` when there is one, else the session's conversation continued
  (``Runner.run(agent, [], session=...)``): the SDK records nothing else, and no file of this adapter
  says whether a run was cut short;
- ``snapshot`` / ``restore``: a copy of the saved ``RunState`` JSON, put back.

A tool result is traced once the SDK has recorded it as the call's answer: a run that returns, the outputs of its
``new_items``; a run that raises, the outputs the exception's ``run_data.new_items`` holds (the SDK attaches them to
every ``AgentsException``), else (an exception of the model client's, say) the outputs the session stored since the
run started; a run killed, the outputs the session stored since the run started, read just before the process dies
(``FaultPlan.on_kill``): the SDK saves a turn's outputs in the session when the turn ends, before the next model turn.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from collections.abc import Awaitable, Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from agents import Agent, MaxTurnsExceeded, RunContextWrapper, Runner, RunState, SQLiteSession, default_tool_error_function
from agents.exceptions import AgentsException
from agents.items import ToolApprovalItem, ToolCallOutputItem

from adapters.approval_objects import named_call
from adapters.column import SessionContext
from handwritten.canonical import args_hash
from harness.column_side.approver import parsed_args
from harness.column_side.protocol import Decision, PendingCall, StepOutcome

from .mcp import StepConnection
from .tools import SessionUser

STATE = "run_state.json"  # the paused run's RunState JSON
SDK_FAILURE = default_tool_error_function(RunContextWrapper(None), RuntimeError())
"""What the SDK gives the model for a tool that raised (its ``failure_error_function`` default), read from the pinned SDK."""


def call_of(item: ToolApprovalItem) -> PendingCall:
    """The tool call an approval item stands for: id, tool, parsed arguments."""
    raw = item.raw_item if isinstance(item.raw_item, dict) else item.raw_item.model_dump()
    return PendingCall(raw["call_id"], raw["name"], parsed_args(raw["arguments"]))


class SavesObserved(SQLiteSession):
    """The SDK's ``SQLiteSession``, each save of items then ``after_save`` (the fault plan's state-save hook): harness
    code at the SDK's persistence."""

    def __init__(self, session_id: str, db_path: str, after_save: Callable[[], None]) -> None:
        super().__init__(session_id, db_path)
        self._after_save = after_save

    async def add_items(self, items: list[Any]) -> None:
        await super().add_items(items)
        if items:  # an empty list is no save
            self._after_save()


class AgentSession:
    """The scenario's session in the scratch directory, as ``defaults`` runs it. ``glue_session.ContractSession``
    overrides the hooks (``_bound``, ``_checkpoint``, ``_status``, ``_refined``) and adds ``reconcile``."""

    def __init__(self, agent: Agent[Any], context: SessionContext, connection: StepConnection | None = None) -> None:
        self.agent = agent
        self.connection = connection  # mcp: the step's `async with server:`, left at close
        self.scenario = context.scenario
        self.history = SavesObserved(context.scenario.session_id, str(context.scratch / "session.sqlite"), context.world.faults.saved)
        self.after_save = context.world.faults.saved
        self.state_file = context.scratch / STATE
        self.emit = context.trace.emit
        self.answered: set[str] = set()  # call ids the loaded RunState already holds an output for
        self.running: tuple[int, set[str]] | None = None  # in a run: the session's last row when it started, its answered ids
        self.paused: RunState[Any, Any] | None = None  # the state a run just paused with and saved, read as it is
        context.world.faults.on_kill(self._before_kill)

    async def saved_state(self) -> RunState[Any, Any] | None:
        if self.paused is not None:
            return self.paused
        if not self.state_file.exists():
            return None
        data = json.loads(self.state_file.read_text(encoding="utf-8"))
        items = data.get("generated_items") or []
        self.answered = {i["raw_item"]["call_id"] for i in items if i.get("type") == "tool_call_output_item"}
        return await RunState.from_json(self.agent, data)

    def save_state(self, state: RunState[Any, Any]) -> None:
        self.state_file.write_text(json.dumps(state.to_json()), encoding="utf-8")
        self.after_save()

    async def outcome(self) -> StepOutcome:
        """The session's state from what is saved: a paused run awaits its undecided calls; without a paused run, a
        conversation that ends in the user's message or in a call nobody answered is a run that died (the SDK saves the
        input when a run starts and the turn's items when it ends: found by scripts/explore.py); anything else is done."""
        state = await self.saved_state()
        if state is None:
            return StepOutcome("crashed", "crashed") if _unanswered(await self.history.get_items()) else StepOutcome("completed", "completed")
        undecided = tuple(call_of(i) for i in state.get_interruptions() if self._decision(state, i) is None)
        if not undecided:  # a decided run that never finished: only the contract's checkpoint saves one
            # contract glue: start
            return StepOutcome("crashed", "crashed")
            # contract glue: end
        return StepOutcome("awaiting_approval", "awaiting_approval", pending=undecided)

    async def run(self, payload: str | list[Any] | RunState[Any, Any], **options: Any) -> StepOutcome:
        """``Runner.run`` from ``payload`` (an input, or a ``RunState``) and what it stopped at."""
        answered = self.answered if isinstance(payload, RunState) else set()
        start = self._last_row()
        self.running = (start, answered)
        try:
            # the session's user as the run's local context, on every run (a resumed RunState's context is replaced by it)
            result = await Runner.run(self.agent, payload, session=self.history, context=SessionUser(user=self.scenario.user), **options)
        except Exception as exc:  # the outputs the SDK recorded before it raised were answers all the same
            self._results(self._recorded(exc, start), answered)
            if not isinstance(exc, MaxTurnsExceeded):
                raise
            self.state_file.unlink(missing_ok=True)
            return StepOutcome("stopped_max_steps", "stopped_max_steps")
        finally:
            self.running = None
        self._results(_outputs(result.new_items), answered)
        if result.interruptions:
            # The docs' way to survive a restart: save the paused run. What the run paused on is read from the state in
            # hand: the SDK can save a state its ``RunState.from_json`` refuses (MAPPING.md, "Exceptions that end a run"),
            # and that refusal belongs to the step that restores it, not to the run that paused.
            self.paused = result.to_state()
            self.save_state(self.paused)
            try:
                return await self.outcome()
            finally:
                self.paused = None
        self.state_file.unlink(missing_ok=True)
        return StepOutcome("completed", "completed")

    def _results(self, raws: list[dict[str, Any]], answered: set[str]) -> None:
        """Trace the tool outputs this run added (a resumed run's ``new_items`` repeat the state's earlier ones)."""
        for raw in sorted((r for r in raws if r["call_id"] not in answered), key=lambda r: str(r["call_id"])):
            self.emit({"kind": "tool_result", "call_id": raw["call_id"], "status": self._status(raw["call_id"], raw["output"]), "content": _text(raw["output"])})

    def _recorded(self, exc: Exception, start: int) -> list[dict[str, Any]]:
        """The tool outputs a run that raised ``exc`` had recorded: the SDK's own run data on the exception, else what the
        session stored after row ``start`` (where the run started)."""
        if isinstance(exc, AgentsException) and exc.run_data is not None:
            return _outputs(exc.run_data.new_items)
        return self._stored_outputs(start)

    def _before_kill(self, call_id: str | None) -> None:
        """Right before a kill in a run (inside a tool, or as the model is asked for a turn): trace the outputs the session
        stored since the run started, the turns that ended before the kill (nothing is traced during a run: none twice)."""
        if self.running is not None:
            start, answered = self.running
            self._results(self._stored_outputs(start), answered)

    def _last_row(self) -> int:
        """The id of the session's last stored item (0 for none)."""
        with closing(sqlite3.connect(self.history.db_path)) as db:
            return int(db.execute("SELECT COALESCE(MAX(id), 0) FROM agent_messages").fetchone()[0])

    def _stored_outputs(self, start: int) -> list[dict[str, Any]]:
        """The ``function_call_output`` items the session stored after row ``start``, read from its file with a connection
        of this call's own (synchronously: a kill's hook may run on a tool's thread or inside the event loop)."""
        with closing(sqlite3.connect(self.history.db_path)) as db:
            rows = db.execute("SELECT message_data FROM agent_messages WHERE session_id = ? AND id > ? ORDER BY id",
                              (self.scenario.session_id, start)).fetchall()
        return [item for item in (json.loads(row[0]) for row in rows) if item.get("type") == "function_call_output"]

    async def deliver(self, text: str) -> StepOutcome:
        return await self.run(text, **await self._bound(new_input=True))

    async def decide(self, decisions: list[Decision]) -> StepOutcome:
        """Approve or reject, on the saved RunState, the approval item of each call a decision names; then run on."""
        state = await self.saved_state()
        items = {call_of(i).call_id: i for i in state.get_interruptions()} if state else {}
        for d in decisions:
            if d.call_id not in items:  # an approval item names its call: with none pending for it there is nothing to decide
                self.emit({"kind": "decision_without_item", "call_id": d.call_id})
            elif d.approve:
                state.approve(self._approval_item(d, items))  # type: ignore[union-attr]
            else:
                state.reject(items[d.call_id], rejection_message=d.reason)  # type: ignore[union-attr]
        if state is None or not any(d.call_id in items for d in decisions):
            return dataclasses.replace(await self.outcome(), ran=False)
        self._checkpoint(state)
        return await self.run(state)

    def _approval_item(self, decision: Decision, items: dict[str, ToolApprovalItem]) -> ToolApprovalItem:
        """The approval item handed to ``state.approve``: the call's own, or for a misuse the one the misuse names (another
        call's item; this call's item with its ``raw_item.arguments`` edited), built the way the SDK builds one."""
        own = items[decision.call_id]
        named = named_call(self.scenario, decision, call_of(own))
        if named == call_of(own):
            return own
        if named.call_id in items and decision.misuse != "other_args":
            return items[named.call_id]
        raw = own.raw_item if isinstance(own.raw_item, dict) else own.raw_item.model_dump()
        edited = {**raw, "call_id": named.call_id, "name": named.tool, "arguments": json.dumps(named.args)}
        rebuilt = edited if isinstance(own.raw_item, dict) else type(own.raw_item).model_validate(edited)
        return dataclasses.replace(own, raw_item=rebuilt, tool_name=named.tool)

    async def resume(self) -> StepOutcome:
        """Continue in this fresh process: the saved RunState, else the session's conversation."""
        state = await self.saved_state()
        if state is not None:
            self.emit({"kind": "resumed", **self.position(state)})
            return await self.run(state)
        self.emit({"kind": "resumed", "position": "model_turn", "pending_call": None, "approved_call_ids": []})
        return await self.run([], **await self._bound(new_input=False))

    async def reconcile(self, call_id: str, outcome: str) -> StepOutcome:
        """Never reached in ``defaults``: the base refuses a reconcile there (nothing in the SDK records an uncertain call)."""
        raise NotImplementedError("reconcile is contract glue: glue_session.ContractSession")

    async def _bound(self, new_input: bool) -> dict[str, Any]:
        """``Runner.run`` options for a run from input: none (``max_turns`` is the SDK's default)."""
        return {}

    def _checkpoint(self, state: RunState[Any, Any]) -> None:
        """Decisions are applied to the state in memory and run at once: the docs save nothing in between."""

    def _status(self, call_id: str, output: Any) -> str:
        """The trace's status of a call's answer: whatever the SDK answered is the tool's answer; but over MCP (where the
        tools are the server's) the SDK's own failure text is the client's: a call it could not complete, an error."""
        return "error" if self.connection is not None and output == SDK_FAILURE else "ok"

    def _refined(self, call: PendingCall, position: str) -> str:
        """Where a resume continues, as the saved RunState alone tells it."""
        return position

    def position(self, state: RunState[Any, Any]) -> dict[str, Any]:
        """Where a resume from this saved RunState continues: its open approvals, and which of them are approved."""
        decisions = [(call_of(i), self._decision(state, i)) for i in state.get_interruptions()]
        approved = [c for c, d in decisions if d]
        undecided = [c for c, d in decisions if d is None]
        position = "awaiting_approval" if undecided else "before_execute" if approved else "model_turn"
        call = next(iter(undecided or approved), None)
        position = self._refined(call, position) if call is not None else position
        pending = {"call_id": call.call_id, "tool": call.tool, "args_hash": args_hash(call.args)} if call else None
        return {"position": position, "pending_call": pending, "approved_call_ids": sorted(c.call_id for c in approved)}

    @staticmethod
    def _decision(state: RunState[Any, Any], item: ToolApprovalItem) -> bool | None:
        """The decision the state holds for an approval item: approved, rejected, or None (undecided)."""
        call = call_of(item)
        return state._context.is_tool_approved(call.tool, call.call_id) if state._context is not None else None

    async def snapshot(self, path: Path) -> StepOutcome:
        """The saved state is the SDK's RunState JSON: keep a copy (an empty file when no run is paused: there is none)."""
        if self.state_file.exists():
            shutil.copyfile(self.state_file, path)
        else:
            path.write_bytes(b"")
        return await self.outcome()

    async def restore(self, path: Path) -> StepOutcome:
        """Deliver the saved state again: the next decision applies to this copy (none when the snapshot had none)."""
        if path.stat().st_size:
            shutil.copyfile(path, self.state_file)
        else:
            self.state_file.unlink(missing_ok=True)
        return await self.outcome()

    def close(self) -> Awaitable[None] | None:
        """Close the session's file; in ``mcp`` leave the step's ``async with server:`` too (awaited by the caller)."""
        self.history.close()
        return self.connection.close() if self.connection is not None else None


def _unanswered(items: list[Any]) -> bool:
    """Whether the session's conversation ends where a run must still answer: the user's message, or a call without output."""
    if not items:
        return False
    last = items[-1]
    answered = {i.get("call_id") for i in items if i.get("type") == "function_call_output"}
    return bool(last.get("role") == "user" or (last.get("type") == "function_call" and last.get("call_id") not in answered))


def _outputs(items: list[Any]) -> list[dict[str, Any]]:
    """The raw ``function_call_output`` items among a run's ``RunItem``s."""
    return [dict(i.raw_item) for i in items if isinstance(i, ToolCallOutputItem)]


def _text(output: Any) -> str:
    return output if isinstance(output, str) else json.dumps(output)
