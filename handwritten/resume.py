"""Where a resumed run continues, read from its latest checkpoint and the idempotency records."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from . import events as ev
from .checkpoint import AgentState, CheckpointStore
from .idempotency import IdempotencyStore, RecordState

ResumePosition = Literal["awaiting_approval", "reconcile", "before_execute", "after_execute", "model_turn"]


def resume_position(
    state: AgentState, idempotency: IdempotencyStore, checkpoints: CheckpointStore, emit: Callable[[ev.Event], None]
) -> tuple[ResumePosition, AgentState]:
    """Where a resumed run continues, and the state it continues from.

    An intent whose record is still in progress (the process died inside its executor) has an
    unknown outcome: the record is marked uncertain and the run stops in ``reconcile_required``,
    checkpointed, before anything runs again."""
    if state.status == "awaiting_approval":
        return "awaiting_approval", state
    if state.status == "reconcile_required":
        return "reconcile", state
    if state.status == "model_unavailable":  # stopped before a model turn: ask again, with a fresh attempt budget
        return "model_turn", state.evolve(status="running", stop_reason=None)
    intent = state.pending_intent
    if intent is None:
        return ("before_execute" if state.queue else "model_turn"), state
    record = idempotency.get(intent.idempotency_key) if intent.idempotency_key else None
    if record is None or record.state is RecordState.FAILED:
        return "before_execute", state
    if record.state is RecordState.COMPLETED:
        return "after_execute", state
    idempotency.mark_uncertain(record.key)
    emit(ev.UncertainOutcome(intent.call_id, "an in-progress record was found on resume"))
    stopped = state.evolve(status="reconcile_required", stop_reason=f"{intent.call_id}: in progress when the process died")
    checkpoints.save(stopped)
    return "reconcile", stopped
