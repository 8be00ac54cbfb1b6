"""The engine's own idempotency records: a side effect runs at most once per key.

Records move through ``in_progress`` -> ``completed`` | ``failed`` | ``uncertain``.
``begin`` is the single decision point and answers with a tagged value, never a lock
error: two processes delivering one key at the same moment serialize on SQLite's
write lock (``BEGIN IMMEDIATE`` with a busy timeout), one gets ``Started`` and the
other gets ``InFlight`` (or ``Replayed`` if the winner already finished).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from enum import Enum
from typing import Protocol

from .canonical import canonical_json
from .storage import connect


class RecordState(str, Enum):
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    FAILED = "failed"  # failed before any effect: a retry may run
    UNCERTAIN = "uncertain"  # entered, outcome unknown: only an explicit reconciliation moves it on


@dataclass(frozen=True)
class Record:
    """One key's record. ``result`` is canonical JSON text once completed."""

    key: str
    args_hash: str
    state: RecordState
    attempts: int
    result: str | None = None
    error: str | None = None
    resolution: str | None = None  # audit: how an uncertain record was reconciled


# begin() outcomes -----------------------------------------------------------------------


@dataclass(frozen=True)
class Started:
    """The caller owns the key now and must run attempt number ``attempt``."""

    attempt: int


@dataclass(frozen=True)
class Replayed:
    """Already completed with the same args: here is the stored result; do not run again."""

    result: str


@dataclass(frozen=True)
class Conflict:
    """The key was used with different arguments: an error, never a replay."""

    stored_args_hash: str


@dataclass(frozen=True)
class InFlight:
    """Another delivery holds the key right now (or held it when its process died)."""


@dataclass(frozen=True)
class Uncertain:
    """A previous attempt's outcome is unknown; reconcile before anything else."""


@dataclass(frozen=True)
class Exhausted:
    """Every allowed attempt failed; ``error`` is the last failure."""

    error: str


Begin = Started | Replayed | Conflict | InFlight | Uncertain | Exhausted


def decide(record: Record | None, args_hash: str, max_attempts: int) -> tuple[Begin, Record | None]:
    """The pure transition of ``begin``: the answer, and the record to store (None: unchanged)."""
    if record is None:
        return Started(1), Record("", args_hash, RecordState.IN_PROGRESS, 1)
    if record.args_hash != args_hash:
        return Conflict(record.args_hash), None
    match record.state:
        case RecordState.COMPLETED:
            return Replayed(record.result or "null"), None
        case RecordState.IN_PROGRESS:
            return InFlight(), None
        case RecordState.UNCERTAIN:
            return Uncertain(), None
        case RecordState.FAILED if record.attempts >= max_attempts:
            return Exhausted(record.error or "failed"), None
        case RecordState.FAILED:
            attempt = record.attempts + 1
            return Started(attempt), replace(record, state=RecordState.IN_PROGRESS, attempts=attempt)
    raise AssertionError(record.state)


class IdempotencyStore(Protocol):
    """Where the engine keeps its idempotency records."""

    def begin(self, key: str, args_hash: str, max_attempts: int) -> Begin: ...
    def complete(self, key: str, result: object) -> None: ...
    def fail(self, key: str, error: str) -> None: ...
    def mark_uncertain(self, key: str) -> None: ...
    def resolve(self, key: str, outcome: str, result: object) -> None: ...
    def get(self, key: str) -> Record | None: ...
    def claim_once(self, key: str) -> bool: ...


class MemoryIdempotencyStore:
    """In-process records, for tests and the in-memory benchmark (a lock stands in for SQLite's)."""

    def __init__(self) -> None:
        self._records: dict[str, Record] = {}
        self._lock = threading.Lock()

    def begin(self, key: str, args_hash: str, max_attempts: int) -> Begin:
        with self._lock:
            answer, new = decide(self._records.get(key), args_hash, max_attempts)
            if new is not None:
                self._records[key] = replace(new, key=key)
            return answer

    def complete(self, key: str, result: object) -> None:
        self._set(key, state=RecordState.COMPLETED, result=canonical_json(result))

    def fail(self, key: str, error: str) -> None:
        self._set(key, state=RecordState.FAILED, error=error)

    def mark_uncertain(self, key: str) -> None:
        with self._lock:
            record = self._records.get(key)
            if record is not None and record.state is RecordState.IN_PROGRESS:
                self._records[key] = replace(record, state=RecordState.UNCERTAIN)

    def resolve(self, key: str, outcome: str, result: object) -> None:
        state = RecordState.COMPLETED if outcome == "confirmed" else RecordState.FAILED
        self._set(key, state=state, result=canonical_json(result), resolution=outcome)

    def get(self, key: str) -> Record | None:
        return self._records.get(key)

    def claim_once(self, key: str) -> bool:
        with self._lock:
            if key in self._records:
                return False
            self._records[key] = Record(key, "", RecordState.COMPLETED, 1, "null")
            return True

    def _set(self, key: str, **changes: object) -> None:
        with self._lock:
            self._records[key] = replace(self._records[key], **changes)  # type: ignore[arg-type]


_SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency (
    key TEXT PRIMARY KEY,
    args_hash TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    result TEXT,
    error TEXT,
    resolution TEXT
)
"""


class SqliteIdempotencyStore:
    """Records in a SQLite file, safe across processes and across threads sharing one store
    (frameworks run parallel tool calls on a thread pool): one connection, one lock."""

    def __init__(self, path: str) -> None:
        self._conn = connect(path)
        self._conn.execute(_SCHEMA)
        self._lock = threading.RLock()

    def close(self) -> None:
        self._conn.close()

    def begin(self, key: str, args_hash: str, max_attempts: int) -> Begin:
        with self._lock:
            return self._begin(key, args_hash, max_attempts)

    def _begin(self, key: str, args_hash: str, max_attempts: int) -> Begin:
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")  # take the write lock first: the read below cannot go stale
        try:
            answer, new = decide(self._read(key), args_hash, max_attempts)
            if new is not None:
                conn.execute(
                    "INSERT OR REPLACE INTO idempotency (key, args_hash, state, attempts, result, error, resolution)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (key, new.args_hash, new.state.value, new.attempts, new.result, new.error, new.resolution),
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return answer

    def complete(self, key: str, result: object) -> None:
        self._update(key, "state = ?, result = ?", RecordState.COMPLETED.value, canonical_json(result))

    def fail(self, key: str, error: str) -> None:
        self._update(key, "state = ?, error = ?", RecordState.FAILED.value, error)

    def mark_uncertain(self, key: str) -> None:
        with self._lock:
            self._conn.execute(
                "UPDATE idempotency SET state = ? WHERE key = ? AND state = ?",
                (RecordState.UNCERTAIN.value, key, RecordState.IN_PROGRESS.value),
            )

    def resolve(self, key: str, outcome: str, result: object) -> None:
        state = RecordState.COMPLETED if outcome == "confirmed" else RecordState.FAILED
        self._update(key, "state = ?, result = ?, resolution = ?", state.value, canonical_json(result), outcome)

    def get(self, key: str) -> Record | None:
        return self._read(key)

    def claim_once(self, key: str) -> bool:
        with self._lock:
            cursor = self._conn.execute(
                "INSERT OR IGNORE INTO idempotency (key, args_hash, state, attempts, result) VALUES (?, '', ?, 1, 'null')",
                (key, RecordState.COMPLETED.value),
            )
            return cursor.rowcount == 1

    def _read(self, key: str) -> Record | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT key, args_hash, state, attempts, result, error, resolution FROM idempotency WHERE key = ?",
                (key,),
            ).fetchone()
        if row is None:
            return None
        return Record(row[0], row[1], RecordState(row[2]), row[3], row[4], row[5], row[6])

    def _update(self, key: str, assignments: str, *values: object) -> None:
        with self._lock:
            self._conn.execute(f"UPDATE idempotency SET {assignments} WHERE key = ?", (*values, key))
