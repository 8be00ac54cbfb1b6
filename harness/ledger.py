"""The side-effect ledger: the observer's ground truth, kept in the fixture world's SQLite file.

Per call id it counts three things separately, each its own commit:
tool entries (somebody called the tool function), executor entries (the body that makes
the side effect started) and committed effects. No engine or adapter may read it to
decide an outcome.
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any

from handwritten.canonical import canonical_json
from handwritten.storage import connect

TOOL_ENTRY = "tool_entry"
EXECUTOR_ENTRY = "executor_entry"
EFFECT = "effect"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS ledger (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    call_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    tool TEXT NOT NULL,
    payload TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS faults_fired (
    fault_index INTEGER PRIMARY KEY,
    point TEXT NOT NULL
);
"""


def open_world_db(path: str) -> sqlite3.Connection:
    """The world's SQLite file: autocommit, WAL, synchronous=NORMAL (the crash model is process death)."""
    conn = connect(path)
    conn.executescript(_SCHEMA)
    return conn


class Ledger:
    """Appends and counts ledger entries."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def record(self, kind: str, call_id: str, tool: str, payload: Any) -> None:
        self._conn.execute(
            "INSERT INTO ledger (call_id, kind, tool, payload) VALUES (?, ?, ?, ?)",
            (call_id, kind, tool, canonical_json(payload)),
        )

    def effects_of(self, tool: str) -> list[Any]:
        """Committed effects of one tool, in commit order (the world's state is derived from them)."""
        import json

        rows = self._conn.execute("SELECT payload FROM ledger WHERE kind = ? AND tool = ? ORDER BY seq", (EFFECT, tool))
        return [json.loads(r[0]) for r in rows]


def ledger_counts(path: str) -> dict[str, dict[str, Any]]:
    """Per call id: its tool, and its tool entries, executor entries and effects (read-only, any process)."""
    if not os.path.exists(path):
        return {}  # no world file yet: nothing happened
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
    try:
        rows = conn.execute("SELECT call_id, tool, kind, COUNT(*) FROM ledger GROUP BY call_id, tool, kind").fetchall()
    except sqlite3.OperationalError:
        rows = []  # no world file yet: nothing happened
    finally:
        conn.close()
    counts: dict[str, dict[str, Any]] = {}
    for call_id, tool, kind, n in rows:
        entry = counts.setdefault(call_id, {"tool": tool, "tool_entries": 0, "executor_entries": 0, "effects": 0})
        entry[{TOOL_ENTRY: "tool_entries", EXECUTOR_ENTRY: "executor_entries", EFFECT: "effects"}[kind]] = n
    return dict(sorted(counts.items()))
