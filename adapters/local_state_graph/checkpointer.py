"""Checkpoint savers of the state-graph runtime: in memory and SQLite.

A checkpoint is everything a fresh process needs to continue a thread. Both savers keep
the same encoded form (canonical JSON, a schema version and a SHA-256 content hash) and
decode it on every read, so a corrupted, unreadable or unknown-version checkpoint raises
``CheckpointError`` and nothing is loaded. Checkpoints are appended, never rewritten:
earlier ones stay readable, which is what ``CompiledGraph.restore`` (time travel) uses.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from handwritten.canonical import canonical_json, sha256_hex
from handwritten.storage import connect

SCHEMA_VERSION = 1


class CheckpointError(Exception):
    """A checkpoint could not be loaded safely (corrupted, unreadable, unknown version) or saved."""


@dataclass(frozen=True)
class Checkpoint:
    """One saved point of a thread, as ``CompiledGraph.get_state`` returns it.

    ``checkpoint_id`` counts the thread's checkpoints from 1; ``step`` counts the
    super-steps the thread has taken; ``source`` is the node whose super-step wrote it
    (or ``input`` / ``restore``); ``next`` is the node to run next (``END`` once the run
    is over); ``interrupt`` is the question that node is waiting on, or None.
    """

    thread_id: str
    checkpoint_id: int
    step: int
    source: str
    values: Mapping[str, Any]
    next: str
    interrupt: Any = None


class Checkpointer(Protocol):
    """Where a compiled graph keeps its checkpoints."""

    def put(self, checkpoint: Checkpoint) -> None: ...
    def latest(self, thread_id: str) -> Checkpoint | None: ...
    def get(self, thread_id: str, checkpoint_id: int) -> Checkpoint | None: ...


Row = tuple[int, str, str]  # (schema version, body, content hash): what a saver stores


def encode(checkpoint: Checkpoint) -> Row:
    body = canonical_json(dataclasses.asdict(checkpoint))  # also refuses values that are not JSON
    return SCHEMA_VERSION, body, sha256_hex(body)


def decode(thread_id: str, checkpoint_id: int, row: Row) -> Checkpoint:
    """The checkpoint a stored row holds, or ``CheckpointError``: never a partial one."""
    version, body, content_hash = row
    where = f"checkpoint {checkpoint_id} of thread {thread_id!r}"
    if version != SCHEMA_VERSION:
        raise CheckpointError(f"{where}: unknown schema version {version!r} (this runtime reads {SCHEMA_VERSION})")
    try:
        if sha256_hex(body) != content_hash:
            raise CheckpointError(f"{where} is corrupted: content hash mismatch")
        checkpoint = Checkpoint(**json.loads(body))
    except (ValueError, TypeError, AttributeError) as exc:
        raise CheckpointError(f"{where} is unreadable: {exc}") from None
    if (checkpoint.thread_id, checkpoint.checkpoint_id) != (thread_id, checkpoint_id) or not isinstance(checkpoint.values, dict):
        raise CheckpointError(f"{where} is corrupted: it does not hold that checkpoint")
    return checkpoint


class MemorySaver:
    """Checkpoints in this process (tests, and graphs that need no durability)."""

    def __init__(self) -> None:
        self._rows: dict[str, dict[int, Row]] = {}

    def put(self, checkpoint: Checkpoint) -> None:
        rows = self._rows.setdefault(checkpoint.thread_id, {})
        if checkpoint.checkpoint_id in rows:
            raise CheckpointError(f"checkpoint {checkpoint.checkpoint_id} of thread {checkpoint.thread_id!r} already exists")
        rows[checkpoint.checkpoint_id] = encode(checkpoint)

    def latest(self, thread_id: str) -> Checkpoint | None:
        rows = self._rows.get(thread_id)
        return self.get(thread_id, max(rows)) if rows else None

    def get(self, thread_id: str, checkpoint_id: int) -> Checkpoint | None:
        row = self._rows.get(thread_id, {}).get(checkpoint_id)
        return None if row is None else decode(thread_id, checkpoint_id, row)


_SCHEMA = """
CREATE TABLE IF NOT EXISTS graph_checkpoints (
    thread_id TEXT NOT NULL,
    checkpoint_id INTEGER NOT NULL,
    schema_version INTEGER NOT NULL,
    body TEXT NOT NULL,          -- the whole checkpoint, canonical JSON
    content_hash TEXT NOT NULL,  -- sha256 of body
    PRIMARY KEY (thread_id, checkpoint_id)
)
"""


class SqliteSaver:
    """Checkpoints appended to a SQLite file (WAL, synchronous=NORMAL: the crash model is process death).

    Each ``put`` is its own commit, so a process killed right after it leaves the
    checkpoint on disk for the next process.
    """

    def __init__(self, path: str) -> None:
        try:
            self._conn = connect(path)
            self._conn.execute(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise CheckpointError(f"checkpoint file {path} is unreadable: {exc}") from None

    def close(self) -> None:
        self._conn.close()

    def put(self, checkpoint: Checkpoint) -> None:
        try:
            self._conn.execute(
                "INSERT INTO graph_checkpoints (thread_id, checkpoint_id, schema_version, body, content_hash) VALUES (?, ?, ?, ?, ?)",
                (checkpoint.thread_id, checkpoint.checkpoint_id, *encode(checkpoint)),
            )
        except sqlite3.IntegrityError:
            raise CheckpointError(f"checkpoint {checkpoint.checkpoint_id} of thread {checkpoint.thread_id!r} already exists") from None

    def latest(self, thread_id: str) -> Checkpoint | None:
        return self._read("WHERE thread_id = ? ORDER BY checkpoint_id DESC LIMIT 1", thread_id)

    def get(self, thread_id: str, checkpoint_id: int) -> Checkpoint | None:
        return self._read("WHERE thread_id = ? AND checkpoint_id = ?", thread_id, checkpoint_id)

    def _read(self, where: str, *params: object) -> Checkpoint | None:
        try:
            row = self._conn.execute(
                f"SELECT thread_id, checkpoint_id, schema_version, body, content_hash FROM graph_checkpoints {where}", params
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise CheckpointError(f"checkpoints of thread {params[0]!r} are unreadable: {exc}") from None
        return None if row is None else decode(row[0], row[1], row[2:])
