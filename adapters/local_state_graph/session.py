"""One session of the contract graph, as the outside world drives it.

Inbound events, human answers (approve, reject, reconcile), resumes after a crash and
snapshots all become calls on the compiled graph; the session id is the graph's thread
id. What happens inside a run is the graph's business; what is decided here is only
what the graph cannot see: an inbound event id delivered again, an answer when no
question is pending, and where a resumed run continues (for the trace).
"""

from __future__ import annotations

from typing import Any

from handwritten import events as ev
from handwritten.engine import RUN_UNFINISHED
from handwritten.idempotency import RecordState
from harness.column_side.protocol import PendingCall, StepOutcome
from harness.records import RunStatus

from .checkpointer import Checkpoint
from .contract import Services, refuse, unexpected
from .graph import END, CompiledGraph, GraphError


def outcome_of(state: Checkpoint, refusal: str | None = None) -> StepOutcome:
    """What one call on a session ended with: the session's status, or ``refused`` with the reason."""
    # A thread left "running" was interrupted mid-run (a kill): reporting it as running would hide that.
    session_status: RunStatus = state.values["status"] if state.values["status"] != "running" else "crashed"
    pending = tuple(PendingCall(c["call_id"], c["tool"], c["args"]) for c in state.values["pending_approval"])
    return StepOutcome("refused" if refusal else session_status, session_status, refusal, pending)


class ContractSession:
    """The session ``session_id`` of a compiled contract graph, with the services its nodes use."""

    def __init__(self, graph: CompiledGraph, session_id: str, services: Services) -> None:
        self._graph = graph
        self._id = session_id
        self._services = services

    def deliver(self, event_id: str, user_input: str) -> StepOutcome:
        """Apply an inbound event; an event id seen before is ignored, not run again."""
        state = self._graph.get_state(self._id)
        if state is not None and event_id in state.values["seen_event_ids"]:
            self._services.emit(ev.DuplicateEvent(event_id))
            return outcome_of(state, refusal="duplicate_event")
        if state is not None and state.next != END:  # the contract's refusal, as the engine's (``Engine.run``)
            self._services.emit(ev.EventRefused(event_id, outcome_of(state).session_status))
            return outcome_of(state, refusal=RUN_UNFINISHED)
        inbound = {"inbound": {"event_id": event_id, "input": user_input}}
        return outcome_of(self._graph.invoke(self._id, inbound, context=self._services))

    def approve(self, call_id: str, token: str) -> StepOutcome:
        return self._answer({"action": "approve", "call_id": call_id, "token": token})

    def reject(self, call_id: str, reason: str) -> StepOutcome:
        return self._answer({"action": "reject", "call_id": call_id, "reason": reason})

    def reconcile(self, call_id: str, outcome: str) -> StepOutcome:
        return self._answer({"action": "reconcile", "call_id": call_id, "outcome": outcome})

    def resume(self) -> StepOutcome:
        """Continue from the latest checkpoint, as a fresh process does after a crash."""
        state = self.state()
        if state.next == END:
            return outcome_of(state)
        intent = state.values["pending_intent"] or {}
        self._services.emit(
            ev.Resumed(
                self._position(state),
                intent.get("call_id"),
                intent.get("tool"),
                intent.get("args_hash"),
                tuple(call_id for call_id, _ in state.values["approved"]),
            )
        )
        return outcome_of(self._graph.invoke(self._id, None, context=self._services))

    def state(self) -> Checkpoint:
        state = self._graph.get_state(self._id)
        if state is None:
            raise GraphError(f"no checkpoint for session {self._id!r}")
        return state

    def restore(self, checkpoint_id: int) -> Checkpoint:
        """Deliver a saved state again, as a retried webhook would: it becomes the latest checkpoint."""
        return self._graph.restore(self._id, checkpoint_id)

    def _answer(self, answer: dict[str, Any]) -> StepOutcome:
        state = self.state()
        if state.interrupt is None:
            return outcome_of(state, refusal=refuse(self._services, answer, unexpected(answer)))
        result = self._graph.resume(self._id, answer, context=self._services)
        # A node that refuses an answer asks its question again, saying why.
        return outcome_of(result, refusal=(result.interrupt or {}).get("refused"))

    def _position(self, state: Checkpoint) -> str:
        """Where the resumed run continues. An intent whose record is not settled will stop for reconciliation."""
        if state.values["status"] == "reconcile_required":
            return "reconcile"
        if state.values["status"] == "awaiting_approval":
            return "awaiting_approval"
        intent = state.values["pending_intent"]
        if intent is None:
            return "before_execute" if state.values["queue"] else "model_turn"
        record = self._services.idempotency.get(intent["idempotency_key"]) if intent["idempotency_key"] else None
        if record is None or record.state is RecordState.FAILED:
            return "before_execute"
        return "after_execute" if record.state is RecordState.COMPLETED else "reconcile"
