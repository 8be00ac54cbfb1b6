"""The persisted agent state and its stores.

Every checkpoint carries a schema version and a content hash. Loading refuses a
checkpoint whose hash does not match, whose version is unknown, or whose fields do not
parse, with a ``CheckpointError`` naming the session and the problem: never half-loaded.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from dataclasses import dataclass
from typing import Any, Protocol

from .canonical import canonical_json, sha256_hex
from .idempotency import connect

SCHEMA_VERSION = 1


class CheckpointError(Exception):
    """A checkpoint could not be loaded safely (corrupted, unknown version, unreadable)."""


@dataclass(frozen=True)
class PendingCall:
    """An admitted tool call: parsed args, their canonical hash and, for effectful tools, its idempotency key."""

    call_id: str
    tool: str
    args: Any
    args_hash: str
    idempotency_key: str | None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class AgentState:
    """Everything needed to continue a session in a fresh process.

    ``status`` is one of running, awaiting_approval, reconcile_required, completed,
    stopped_max_steps. Tool results of the current turn are gathered in ``turn_results``
    and enter ``messages`` in the model's call order once the whole turn is resolved.
    """

    session_id: str
    event_id: str | None = None
    seen_event_ids: tuple[str, ...] = ()
    step: int = 0
    status: str = "running"
    messages: tuple[dict[str, Any], ...] = ()
    turn_call_ids: tuple[str, ...] = ()
    turn_results: tuple[dict[str, Any], ...] = ()
    queue: tuple[PendingCall, ...] = ()
    pending_approval: tuple[PendingCall, ...] = ()
    pending_intent: PendingCall | None = None
    approved: tuple[tuple[str, str], ...] = ()  # (call_id, token_id) of approvals granted this turn
    final_text: str | None = None
    stop_reason: str | None = None

    def evolve(self, **changes: Any) -> "AgentState":
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "event_id": self.event_id,
            "seen_event_ids": list(self.seen_event_ids),
            "step": self.step,
            "status": self.status,
            "messages": list(self.messages),
            "turn_call_ids": list(self.turn_call_ids),
            "turn_results": list(self.turn_results),
            "queue": [c.to_json() for c in self.queue],
            "pending_approval": [c.to_json() for c in self.pending_approval],
            "pending_intent": self.pending_intent.to_json() if self.pending_intent else None,
            "approved": [list(a) for a in self.approved],
            "final_text": self.final_text,
            "stop_reason": self.stop_reason,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> "AgentState":
        """Rebuild a state; any missing or extra field is an error (raised as ``KeyError``/``TypeError``)."""
        expected = {f.name for f in dataclasses.fields(AgentState)}
        if set(data) != expected:
            raise KeyError(f"fields differ from schema: missing {sorted(expected - set(data))}, extra {sorted(set(data) - expected)}")
        intent = data["pending_intent"]
        return AgentState(
            session_id=data["session_id"],
            event_id=data["event_id"],
            seen_event_ids=tuple(data["seen_event_ids"]),
            step=int(data["step"]),
            status=data["status"],
            messages=tuple(data["messages"]),
            turn_call_ids=tuple(data["turn_call_ids"]),
            turn_results=tuple(data["turn_results"]),
            queue=tuple(PendingCall(**c) for c in data["queue"]),
            pending_approval=tuple(PendingCall(**c) for c in data["pending_approval"]),
            pending_intent=PendingCall(**intent) if intent else None,
            approved=tuple((a[0], a[1]) for a in data["approved"]),
            final_text=data["final_text"],
            stop_reason=data["stop_reason"],
        )


def encode(state: AgentState) -> tuple[str, str]:
    """The stored text of a state and its content hash."""
    blob = canonical_json({"schema_version": SCHEMA_VERSION, "state": state.to_json()})
    return blob, sha256_hex(blob)


def decode(session_id: str, version: int, content_hash: str, blob: str) -> AgentState:
    """Check version and hash, then parse; refuse anything else."""
    where = f"checkpoint for session {session_id!r}"
    if version != SCHEMA_VERSION:
        raise CheckpointError(f"{where}: unknown schema version {version} (this engine reads {SCHEMA_VERSION})")
    if sha256_hex(blob) != content_hash:
        raise CheckpointError(f"{where} is corrupted: content hash mismatch")
    try:
        document = json.loads(blob)
        if document.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(f"embedded schema version {document.get('schema_version')!r}")
        return AgentState.from_json(document["state"])
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CheckpointError(f"{where} is unreadable: {exc}") from None


class CheckpointStore(Protocol):
    """Where the engine persists ``AgentState``; ``load`` returns the latest or None."""

    def save(self, state: AgentState) -> None: ...
    def load(self, session_id: str) -> AgentState | None: ...


class MemoryCheckpointStore:
    """Latest state per session, in process (no serialization: for tests and the in-memory benchmark)."""

    def __init__(self) -> None:
        self._latest: dict[str, AgentState] = {}
        self.saves = 0

    def save(self, state: AgentState) -> None:
        self._latest[state.session_id] = state
        self.saves += 1

    def load(self, session_id: str) -> AgentState | None:
        return self._latest.get(session_id)


_SCHEMA = """
CREATE TABLE IF NOT EXISTS checkpoints (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    schema_version INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
)
"""


class SqliteCheckpointStore:
    """Every checkpoint of every session in a SQLite file (WAL); the highest ``seq`` is the latest."""

    def __init__(self, path: str) -> None:
        try:
            self._conn = connect(path)
            self._conn.execute(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise CheckpointError(f"checkpoint file is unreadable: {exc}") from None

    def close(self) -> None:
        self._conn.close()

    def save(self, state: AgentState) -> None:
        blob, content_hash = encode(state)
        self._conn.execute(
            "INSERT INTO checkpoints (session_id, seq, schema_version, content_hash, state)"
            " SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ? FROM checkpoints WHERE session_id = ?",
            (state.session_id, SCHEMA_VERSION, content_hash, blob, state.session_id),
        )

    def load(self, session_id: str) -> AgentState | None:
        try:
            row = self._conn.execute(
                "SELECT schema_version, content_hash, state FROM checkpoints WHERE session_id = ?"
                " ORDER BY seq DESC LIMIT 1",
                (session_id,),
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise CheckpointError(f"checkpoint for session {session_id!r} is unreadable: {exc}") from None
        if row is None:
            return None
        return decode(session_id, row[0], row[1], row[2])
