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
from typing import Any, Literal, Protocol, get_args

from .canonical import canonical_json, sha256_hex
from .storage import connect

SCHEMA_VERSION = 1

AgentStatus = Literal["running", "awaiting_approval", "reconcile_required", "completed", "stopped_max_steps", "model_unavailable"]
_STATUSES: frozenset[str] = frozenset(get_args(AgentStatus))


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
        # Not dataclasses.asdict: it deep-copies the arguments for nothing.
        return {"call_id": self.call_id, "tool": self.tool, "args": self.args, "args_hash": self.args_hash, "idempotency_key": self.idempotency_key}


@dataclass(frozen=True)
class AgentState:
    """Everything needed to continue a session in a fresh process.

    ``status`` says where the run is (``AgentStatus``). Tool results of the current turn are gathered in ``turn_results``
    and enter ``messages`` in the model's call order once the whole turn is resolved.
    """

    session_id: str
    event_id: str | None = None
    seen_event_ids: tuple[str, ...] = ()
    step: int = 0
    status: AgentStatus = "running"
    messages: tuple[dict[str, Any], ...] = ()
    turn_call_ids: tuple[str, ...] = ()
    turn_results: tuple[dict[str, Any], ...] = ()
    queue: tuple[PendingCall, ...] = ()
    pending_approval: tuple[PendingCall, ...] = ()
    pending_intent: PendingCall | None = None
    approved: tuple[tuple[str, str], ...] = ()  # (call_id, token_id) of approvals granted this turn
    final_text: str | None = None
    stop_reason: str | None = None

    def evolve(self, **changes: Any) -> AgentState:
        """A copy with ``changes`` applied (the loop evolves its state ~20 times a run:
        ``dataclasses.replace`` re-runs ``__init__`` and costs several times more)."""
        if not _FIELDS.issuperset(changes):
            raise TypeError(f"AgentState has no fields {sorted(changes.keys() - _FIELDS)}")
        fields = self.__dict__.copy()
        fields.update(changes)
        new = object.__new__(AgentState)
        object.__setattr__(new, "__dict__", fields)
        return new

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
    def from_json(data: dict[str, Any]) -> AgentState:
        """Rebuild a state; any missing or extra field is an error (raised as ``KeyError``/``TypeError``)."""
        if set(data) != _FIELDS:
            raise KeyError(f"fields differ from schema: missing {sorted(_FIELDS - set(data))}, extra {sorted(set(data) - _FIELDS)}")
        intent = data["pending_intent"]
        return AgentState(
            session_id=data["session_id"],
            event_id=data["event_id"],
            seen_event_ids=tuple(data["seen_event_ids"]),
            step=int(data["step"]),
            status=_status(data["status"]),
            messages=tuple(data["messages"]),
            turn_call_ids=tuple(data["turn_call_ids"]),
            turn_results=tuple(data["turn_results"]),
            queue=tuple(PendingCall(**c) for c in data["queue"]),
            pending_approval=tuple(PendingCall(**c) for c in data["pending_approval"]),
            pending_intent=PendingCall(**intent) if intent else None,
            approved=tuple(_pair(a) for a in data["approved"]),
            final_text=data["final_text"],
            stop_reason=data["stop_reason"],
        )


_FIELDS = frozenset(f.name for f in dataclasses.fields(AgentState))


def _status(value: Any) -> AgentStatus:
    if value not in _STATUSES:
        raise ValueError(f"unknown status {value!r}")  # refused as unreadable, like any field that does not parse
    status: AgentStatus = value
    return status


def _pair(entry: Any) -> tuple[str, str]:
    call_id, token_id = entry  # anything but a pair is a ValueError or TypeError, refused as unreadable
    return str(call_id), str(token_id)


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
    seq INTEGER PRIMARY KEY,    -- the rowid: rows are never deleted, so it only grows
    session_id TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    parent INTEGER,             -- the checkpoint this one extends; NULL starts a chain (messages from 0)
    kept INTEGER NOT NULL,      -- how many of the parent's messages this checkpoint keeps
    added TEXT NOT NULL,        -- the messages after those, as a JSON list
    state TEXT NOT NULL,        -- the rest of the state, canonical JSON
    content_hash TEXT NOT NULL  -- sha256 over the parent's hash and this row's content
);
CREATE INDEX IF NOT EXISTS checkpoints_by_session ON checkpoints (session_id, seq);
"""

REBASE_EVERY = 64  # a chain is at most this long, so loading a long session stays cheap

_CHAIN = """
WITH RECURSIVE chain(seq) AS (
    SELECT MAX(seq) FROM checkpoints WHERE session_id = ?
    UNION ALL
    SELECT checkpoints.parent FROM checkpoints JOIN chain ON checkpoints.seq = chain.seq
    WHERE checkpoints.parent IS NOT NULL
)
SELECT seq, session_id, schema_version, parent, kept, added, state, content_hash
FROM checkpoints WHERE seq IN (SELECT seq FROM chain) ORDER BY seq
"""


class SqliteCheckpointStore:
    """Every checkpoint of every session, appended to a SQLite file (WAL); the newest one wins.

    The transcript only grows, so a checkpoint row holds only the messages added since
    its parent (the checkpoint this store last wrote or loaded for the session,
    recognized by identity) and the rest of the state. Each row's hash covers its
    parent's hash, so ``load`` walks from the newest row back to the start of its chain
    and refuses any changed byte. A save is one small insert: the same cost at step 50
    as at step 2.
    """

    def __init__(self, path: str) -> None:
        try:
            self._conn = connect(path)
            self._conn.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise CheckpointError(f"checkpoint file is unreadable: {exc}") from None
        # session -> (messages as last written or loaded, that row's seq, its hash, the chain's length)
        self._written: dict[str, tuple[tuple[dict[str, Any], ...], int, str, int]] = {}

    def close(self) -> None:
        self._conn.close()

    def save(self, state: AgentState) -> None:
        session, messages = state.session_id, state.messages
        known, parent, parent_hash, length = self._written.get(session, ((), 0, "", REBASE_EVERY))
        kept = 0
        if length >= REBASE_EVERY:
            parent, parent_hash, length = 0, "", 0
        else:
            while kept < min(len(known), len(messages)) and known[kept] is messages[kept]:
                kept += 1
        added = canonical_json(list(messages[kept:]))
        body = state.to_json()
        del body["messages"]
        state_text = canonical_json(body)
        content_hash = _link(parent_hash, kept, added, state_text)
        cursor = self._conn.execute(
            "INSERT INTO checkpoints (session_id, schema_version, parent, kept, added, state, content_hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (session, SCHEMA_VERSION, parent or None, kept, added, state_text, content_hash),
        )
        self._written[session] = (messages, cursor.lastrowid or 0, content_hash, length + 1)

    def load(self, session_id: str) -> AgentState | None:
        where = f"checkpoint for session {session_id!r}"
        try:
            rows = self._conn.execute(_CHAIN, (session_id,)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise CheckpointError(f"{where} is unreadable: {exc}") from None
        if not rows:
            return None
        messages: list[Any] = []
        previous: tuple[int, str] | None = None  # (seq, hash) of the row before in the chain
        try:
            for seq, session, version, parent, kept, added, state_text, content_hash in rows:
                if version != SCHEMA_VERSION:
                    raise CheckpointError(f"{where}: unknown schema version {version} (this engine reads {SCHEMA_VERSION})")
                if session != session_id or parent != (previous[0] if previous else None):
                    raise CheckpointError(f"{where} is corrupted: its chain is broken at checkpoint {seq}")
                if _link(previous[1] if previous else "", kept, added, state_text) != content_hash:
                    raise CheckpointError(f"{where} is corrupted: content hash mismatch")
                if kept > len(messages):
                    raise CheckpointError(f"{where} is corrupted: keeps {kept} of {len(messages)} messages")
                messages = messages[:kept] + json.loads(added)
                previous = (seq, content_hash)
            state = AgentState.from_json(dict(json.loads(rows[-1][6]), messages=messages))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise CheckpointError(f"{where} is unreadable: {exc}") from None
        assert previous is not None
        self._written[session_id] = (state.messages, previous[0], previous[1], len(rows))
        return state


def _link(parent_hash: str, kept: int, added: str, state_text: str) -> str:
    return sha256_hex(f"{parent_hash}\n{kept}\n{added}\n{state_text}")
