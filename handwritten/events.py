"""Trace events: frozen, kind-tagged dataclasses that round-trip to JSON.

The trace is the evidence format: every field is a JSON scalar, a tuple of scalars,
or canonical JSON text, so ``Event.from_json(e.to_json()) == e`` always holds.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class Event:
    """Base of all trace events; ``kind`` names the concrete type in JSON."""

    kind: ClassVar[str] = "event"
    _registry: ClassVar[dict[str, type[Event]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        Event._registry[cls.kind] = cls

    def to_json(self) -> dict[str, Any]:
        """The event as a JSON object, tagged with its kind."""
        body = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {"kind": self.kind, **{k: list(v) if isinstance(v, tuple) else v for k, v in body.items()}}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Event:
        """Rebuild an event from ``to_json`` output; an unknown kind is a ``ValueError``."""
        fields = dict(data)
        kind = fields.pop("kind", None)
        cls = Event._registry.get(kind)
        if cls is None:
            raise ValueError(f"unknown trace event kind: {kind!r}")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})


@dataclass(frozen=True)
class RunStarted(Event):
    """A new inbound event (user input) started or continued a session."""

    kind: ClassVar[str] = "run_started"
    session_id: str
    event_id: str


@dataclass(frozen=True)
class DuplicateEvent(Event):
    """An inbound event id that was already applied arrived again and was ignored."""

    kind: ClassVar[str] = "duplicate_event"
    event_id: str


@dataclass(frozen=True)
class EventRefused(Event):
    """A new inbound event arrived while the session's run was unfinished (awaiting an approval or a reconcile, or
    interrupted by a crash) and was refused, not applied: the run must be settled or resumed first."""

    kind: ClassVar[str] = "event_refused"
    event_id: str
    session_status: str


@dataclass(frozen=True)
class Resumed(Event):
    """A run was loaded from its latest checkpoint; ``position`` says where it continues."""

    kind: ClassVar[str] = "resumed"
    position: str
    pending_call_id: str | None
    pending_tool: str | None
    pending_args_hash: str | None
    approved_call_ids: tuple[str, ...]


@dataclass(frozen=True)
class ModelTurn(Event):
    """The model answered turn ``step``: final text, or tool calls (ids and names)."""

    kind: ClassVar[str] = "model_turn"
    step: int
    call_ids: tuple[str, ...]
    tools: tuple[str, ...]
    final_text: str | None


@dataclass(frozen=True)
class SchemaRejected(Event):
    """A call's arguments failed strict validation; the executor was never called."""

    kind: ClassVar[str] = "schema_rejected"
    call_id: str
    tool: str
    errors: tuple[str, ...]


@dataclass(frozen=True)
class CallAdmitted(Event):
    """A call passed schema validation and got its policy decision."""

    kind: ClassVar[str] = "call_admitted"
    call_id: str
    tool: str
    args_hash: str
    decision: str


@dataclass(frozen=True)
class ApprovalRequested(Event):
    """A high-risk call is waiting for a human decision."""

    kind: ClassVar[str] = "approval_requested"
    call_id: str
    tool: str
    args_hash: str


@dataclass(frozen=True)
class ApprovalGranted(Event):
    """A valid token approved a pending call; the token is now used."""

    kind: ClassVar[str] = "approval_granted"
    call_id: str
    token_id: str


@dataclass(frozen=True)
class ApprovalRefused(Event):
    """A token was refused; the pending call stays pending."""

    kind: ClassVar[str] = "approval_refused"
    call_id: str
    reason: str


@dataclass(frozen=True)
class CallRejected(Event):
    """A human rejected a pending call; the model sees the rejection as a tool result."""

    kind: ClassVar[str] = "call_rejected"
    call_id: str
    reason: str


@dataclass(frozen=True)
class IntentCheckpointed(Event):
    """The call's intent was persisted; the executor may run next."""

    kind: ClassVar[str] = "intent_checkpointed"
    call_id: str
    idempotency_key: str | None


@dataclass(frozen=True)
class ToolAttemptFailed(Event):
    """One attempt of a call raised before any effect; a retry may follow."""

    kind: ClassVar[str] = "tool_attempt_failed"
    call_id: str
    attempt: int
    error: str


@dataclass(frozen=True)
class ToolResult(Event):
    """A call's result entered the transcript. ``status``: ok, error, replayed, refused, rejected, reconciled."""

    kind: ClassVar[str] = "tool_result"
    call_id: str
    tool: str
    status: str
    content: str


@dataclass(frozen=True)
class UncertainOutcome(Event):
    """The executor was entered and its outcome is unknown; the run stops for reconciliation."""

    kind: ClassVar[str] = "uncertain_outcome"
    call_id: str
    reason: str


@dataclass(frozen=True)
class Reconciled(Event):
    """An operator settled an uncertain call explicitly (audited)."""

    kind: ClassVar[str] = "reconciled"
    call_id: str
    outcome: str


@dataclass(frozen=True)
class Finished(Event):
    """The model gave a final answer."""

    kind: ClassVar[str] = "finished"
    text: str


@dataclass(frozen=True)
class StoppedMaxSteps(Event):
    """The step bound was reached before a final answer."""

    kind: ClassVar[str] = "stopped_max_steps"
    max_steps: int


@dataclass(frozen=True)
class ModelUnavailableStop(Event):
    """The model could not be reached within its attempt budget: the run stops ``model_unavailable`` before turn ``step``."""

    kind: ClassVar[str] = "model_unavailable"
    step: int
    attempts: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class BoundaryCall(Event):
    """A call from outside the engine's loop met the tool boundary (``handwritten.boundary``): its outcome."""

    kind: ClassVar[str] = "boundary_call"
    call_id: str
    tool: str
    status: str
    reason: str | None


@dataclass(frozen=True)
class AnswerWithdrawn(Event):
    """The caller withdrew a boundary call after the boundary had answered it and before that answer was sent (over
    MCP: the server cancelled the call's handler, on ``notifications/cancelled`` or the session's end): whatever the
    call did stands, and the caller never got its answer."""

    kind: ClassVar[str] = "answer_withdrawn"
    call_id: str
    tool: str


def discard(event: Event) -> None:
    """The trace sink of an engine that has none."""
