"""One scenario's session on Pydantic AI: agent runs over the message history saved in the scratch directory.

``messages.json``: the history (``ModelMessagesTypeAdapter``), written when a run returns and, in ``contract``
(glue), at every node boundary of ``agent.iter``. ``session.json``: the status (``running`` during a run: a
kill leaves it, read as ``crashed``), the calls the run waits on, the calls held with them, the uncertain call.

A tool result is traced once it is in the run's messages as Pydantic AI holds them (``capture_run_messages``: the
list the run appends to), in a request the model was sent or is about to be sent: when the history is saved (a run
that returns; in ``contract``, every node boundary), when a run raises, and right before a kill
(``FaultPlan.on_kill``), where nothing is saved in ``defaults``: the request a model turn is asked with is in that
list before the model is called. A request Pydantic AI records as ``interrupted`` (tools cut short by an exception)
was never sent, and its results are not traced.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ModelMessagesTypeAdapter, ToolApproved, ToolDenied, UsageLimits, capture_run_messages
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

from adapters.approval_objects import named_call
from adapters.column import SessionContext
from adapters.glue_blocks import resume_position, turns_left
from handwritten.canonical import args_hash
from harness.column_side.protocol import Decision, PendingCall, StepOutcome
from harness.records import RunStatus

from .glue import HELD, record_reconcile, roles, save_decisions, saved_results
from .tools import SessionUser, needs_approval

STATE_FILES = ("messages.json", "session.json", "decisions.json", "reconcile.json")


class PydanticAISession:
    """The session in the scratch directory; ``statuses`` is where the glue puts each call's status."""

    def __init__(self, agent: Agent[SessionUser, Any], context: SessionContext, statuses: dict[str, str]) -> None:
        self.agent, self.contract, self.emit = agent, context.contract, context.trace.emit
        self.scratch, self.statuses, self.scenario = context.scratch, statuses, context.scenario
        self.reported = len(answers(load_history(self.scratch)))  # answers already traced
        self.running: list[ModelMessage] | None = None  # during a run: its messages, the list Pydantic AI appends to
        self.faults = context.world.faults
        self.faults.on_kill(self._before_kill)

    def _save(self, messages: list[ModelMessage]) -> None:
        (self.scratch / "messages.json").write_bytes(ModelMessagesTypeAdapter.dump_json(messages))
        self._trace(messages)

    def _node_saved(self, messages: list[ModelMessage]) -> None:
        """The save at every node of a run (the contract's glue makes it): the history is the whole save, so the fault
        plan's state-save hook follows (harness code, not glue). After a run, the status saved with the history
        completes the save (``_run``)."""
        self._save(messages)
        self.faults.saved()

    def _trace(self, messages: list[ModelMessage]) -> None:
        """Trace the answers ``messages`` holds past those already traced: a result reached the model once it is in a
        request of the run's history (sent, or about to be sent), whether or not that history is saved afterwards."""
        delivered = answers(m for m in messages if not (isinstance(m, ModelRequest) and m.state == "interrupted"))
        for part in delivered[self.reported :]:
            status = {"denied": "rejected", "success": self.statuses.get(part.tool_call_id, "ok")}.get(part.outcome, "error")
            self.emit({"kind": "tool_result", "call_id": part.tool_call_id, "status": status, "content": part.model_response_str()})
        self.reported = len(delivered)

    def _before_kill(self, call_id: str | None) -> None:
        """Right before a kill inside a run (in a tool, or as the model is asked for a turn): trace the answers the run's
        messages hold that no save traced yet (the request a model turn is asked with is in them before the model runs)."""
        if self.running is not None:
            self._trace(self.running)

    def _state(self) -> dict[str, Any]:
        path = self.scratch / "session.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"status": "completed"}

    def _set_state(self, status: str, **more: Any) -> StepOutcome:
        (self.scratch / "session.json").write_text(json.dumps({"status": status, **more}), encoding="utf-8")
        return self.outcome()

    def outcome(self) -> StepOutcome:
        state = self._state()
        status: RunStatus = "crashed" if state["status"] == "running" else state["status"]
        pending = tuple(PendingCall(p["call_id"], p["tool"], p["args"]) for p in state.get("pending", ()))
        return StepOutcome(status, status, pending=pending, uncertain_call=state.get("uncertain"))

    async def _run(self, prompt: str | None, results: DeferredToolResults | None) -> StepOutcome:
        """One agent run from the saved history, and the status it ended in."""
        history = load_history(self.scratch)
        self._set_state("running")
        with capture_run_messages() as messages:  # Pydantic AI's own list of the run's messages, kept when it raises
            self.running = messages
            try:
                result = await self._drive(prompt, history, results)
            except Exception:
                self._trace(messages)  # the answers the run delivered before it raised
                self._set_state("error")
                raise
            finally:
                self.running = None
        if isinstance(result, StepOutcome):  # the run stopped at the step bound
            # contract glue: start
            return result
            # contract glue: end
        self._save(result.all_messages())
        outcome = self._settle(result.output)
        self.faults.saved()  # the history and its status: the run's save is whole
        return outcome

    def _settle(self, output: Any) -> StepOutcome:
        """Save the status a run's ``output`` ends it in."""
        if not isinstance(output, DeferredToolRequests):
            return self._set_state("completed")
        for call in output.approvals:  # Pydantic AI lists a call for approval once its arguments passed its validation
            self.emit({"kind": "args_validated", "call_id": call.tool_call_id})
        held = [c.tool_call_id for c in output.approvals if output.metadata.get(c.tool_call_id, {}).get(HELD)]
        pending = [{"call_id": c.tool_call_id, "tool": c.tool_name, "args": c.args_as_dict()} for c in output.approvals if c.tool_call_id not in held]
        uncertain = output.calls[0].tool_call_id if output.calls else None
        return self._set_state("reconcile_required" if uncertain else "awaiting_approval", pending=pending, held=held, uncertain=uncertain)

    async def _drive(self, prompt: str | None, history: list[ModelMessage], results: DeferredToolResults | None) -> Any:
        options: dict[str, Any] = {"message_history": history, "deferred_tool_results": results, "deps": SessionUser(self.scenario.user)}
        if self.contract is not None:  # the step bound counted from the saved conversation; a save at every node
            # contract glue: start
            bound = turns_left(self.contract, roles(history) + (["user"] if prompt else []))
            try:
                async with self.agent.iter(prompt, usage_limits=UsageLimits(request_limit=bound), **options) as run:
                    async for node in run:  # the request a model node is about to send holds the last tool results
                        self._node_saved(run.all_messages() + ([node.request] if Agent.is_model_request_node(node) else []))
            except UsageLimitExceeded:  # Pydantic AI's own bound, reached: a terminal state, not an error
                return self._set_state("stopped_max_steps")
            return run.result
            # contract glue: end
        return await self.agent.run(prompt, **options)

    async def deliver(self, text: str) -> StepOutcome:
        """A run from the saved history with the new prompt. Pydantic AI refuses a new prompt while the history holds
        calls waiting for their ``DeferredToolResults`` (``UserError``, before the run does anything): the step is that
        error, and the session still waits for those calls, as it does for a caller who keeps the history and the
        ``DeferredToolRequests`` it was paused with. So when a run raised with calls waiting and left the saved history
        as it was, the waiting state is put back (``_run`` marked it ``error``)."""
        before, saved = self._state(), _saved_bytes(self.scratch)
        try:
            return await self._run(text, None)
        except Exception:
            if before["status"] == "awaiting_approval" and _saved_bytes(self.scratch) == saved:
                (self.scratch / "session.json").write_text(json.dumps(before), encoding="utf-8")
            raise

    async def decide(self, decisions: list[Decision]) -> StepOutcome:
        """The turn's decisions as one ``DeferredToolResults`` by call id. As documented, the results are built from
        the calls the run waits on: a decision on any other call is never handed over."""
        state = self._state()
        if sorted(d.call_id for d in decisions) != sorted(p["call_id"] for p in state.get("pending", ())):
            self.emit({"kind": "decision_without_call", "call_ids": [d.call_id for d in decisions]})
            return dataclasses.replace(self.outcome(), ran=False)
        approvals: dict[str, bool | ToolApproved | ToolDenied] = {d.call_id: d.approve or ToolDenied(d.reason or "not approved") for d in decisions if d.misuse is None}
        pending = {p["call_id"]: PendingCall(p["call_id"], p["tool"], p["args"]) for p in state.get("pending", ())}
        for d in decisions:  # a misused approval last: built as a caller would, it is what goes in under the id it names
            if d.misuse is not None:
                named = named_call(self.scenario, d, pending.get(d.call_id))
                approvals[named.call_id] = ToolApproved(override_args=named.args) if d.misuse == "other_args" else True
        if self.contract is not None:
            # contract glue: start
            approvals |= {call_id: True for call_id in state.get("held", ())}  # held with the turn: they run now
            save_decisions(self.scratch, approvals)
            # contract glue: end
        return await self._run(None, DeferredToolResults(approvals=approvals))

    async def resume(self) -> StepOutcome:
        """Run again from the saved history with no new prompt, as the documentation continues a run."""
        history = load_history(self.scratch)
        if not history:  # Pydantic AI has neither a history nor a prompt to run from
            return self.outcome().refused("nothing saved to resume from")
        results = None
        if self.contract is not None:  # the approvals given before a kill, for the calls still unanswered
            # contract glue: start
            results = saved_results(self.contract, self.scratch, open_calls(history))
            # contract glue: end
        self.emit({"kind": "resumed", **self._position(history, results)})
        return await self._run(None, results)

    async def reconcile(self, call_id: str, outcome: str) -> StepOutcome:
        # contract glue: start
        assert self.contract is not None
        record_reconcile(self.scratch, call_id, outcome)
        return await self._run(None, saved_results(self.contract, self.scratch, open_calls(load_history(self.scratch))))
        # contract glue: end

    def snapshot(self, path: Path) -> StepOutcome:
        """A copy of the session's files."""
        files = {name: (self.scratch / name).read_text(encoding="utf-8") for name in STATE_FILES if (self.scratch / name).exists()}
        path.write_text(json.dumps(files), encoding="utf-8")
        return self.outcome()

    def restore(self, path: Path) -> StepOutcome:
        """The saved files delivered again, as a retried webhook would."""
        files = json.loads(path.read_text(encoding="utf-8"))
        for name in STATE_FILES:
            (self.scratch / name).unlink(missing_ok=True)
            if name in files:
                (self.scratch / name).write_text(files[name], encoding="utf-8")
        self.reported = len(answers(load_history(self.scratch)))
        return self.outcome()

    def close(self) -> None:  # nothing stays open between steps
        return None

    def _position(self, history: list[ModelMessage], results: DeferredToolResults | None) -> dict[str, Any]:
        """Where a resume continues: the first unanswered call (asked about again, or run), else a model turn."""
        decided = results.approvals if results is not None else {}
        approved = sorted(c for c, a in decided.items() if a is True)
        if not (calls := open_calls(history)):
            return {"position": "model_turn", "pending_call": None, "approved_call_ids": approved}
        call = calls[0]
        position = "awaiting_approval" if call.tool_call_id not in decided and needs_approval(call.tool_name) else "before_execute"
        if self.contract is not None and position == "before_execute":
            # contract glue: start
            position = resume_position(self.contract, call.tool_call_id, position)
            # contract glue: end
        pending = {"call_id": call.tool_call_id, "tool": call.tool_name, "args_hash": args_hash(call.args_as_dict())}
        return {"position": position, "pending_call": pending, "approved_call_ids": approved}


def _saved_bytes(scratch: Path) -> bytes | None:
    """The saved history as stored (``None`` before the first save), to tell whether a run changed it."""
    path = scratch / "messages.json"
    return path.read_bytes() if path.exists() else None


def load_history(scratch: Path) -> list[ModelMessage]:
    path = scratch / "messages.json"
    return ModelMessagesTypeAdapter.validate_json(path.read_bytes()) if path.exists() else []


def answers(messages: Iterable[ModelMessage]) -> list[ToolReturnPart]:
    """Every call's answer in the history, in order (a validation retry is a return with ``outcome='retried'``)."""
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


def open_calls(history: list[ModelMessage]) -> list[ToolCallPart]:
    """The calls of the last model response that no later request answers."""
    last = max((i for i, m in enumerate(history) if isinstance(m, ModelResponse)), default=None)
    if last is None:
        return []
    answered = {p.tool_call_id for p in answers(history[last + 1 :])}
    return [p for p in history[last].parts if isinstance(p, ToolCallPart) and p.tool_call_id not in answered]
