"""Fault points: a closed list, each fault fires once, and its firing is committed before it acts.

A kill is ``os._exit(FAULT_EXIT_CODE)``: real process death, no cleanup, no flush. It is
only allowed inside a worker process that a supervisor spawned and waits for.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from typing import Any

from handwritten.storage import connect
from harness.errors import HarnessError
from harness.fixture_tools import InjectedToolError
from harness.scenarios import Fault

FAULT_EXIT_CODE = 86
SCHEDULE_FAILED_EXIT_CODE = 87  # a schedule's ordering could not be forced: the step is an error, not a measurement
FAULTS_FILE = "faults.sqlite"  # in the run's scratch directory: which faults fired

def open_faults_db(path: str) -> sqlite3.Connection:
    """The file where fault firings are committed (autocommit, WAL)."""
    conn = connect(path)
    conn.execute("CREATE TABLE IF NOT EXISTS faults_fired (fault_index INTEGER PRIMARY KEY, point TEXT NOT NULL)")
    conn.execute("CREATE TABLE IF NOT EXISTS schedule_failures (seq INTEGER PRIMARY KEY AUTOINCREMENT, message TEXT NOT NULL)")
    return conn


class FaultPlan:
    """The scenario's faults, fired at most once each across every process of a run."""

    def __init__(self, faults: list[Fault], conn: sqlite3.Connection | None, may_kill: bool) -> None:
        self._faults = faults
        self._conn = conn
        self._may_kill = may_kill
        self._before_kill: list[Callable[[str | None], None]] = []
        self._killing: set[int] = set()
        self._lock = threading.Lock()  # a framework may run tools in threads that share this connection

    def has(self, point: str) -> bool:
        """Whether the scenario schedules a fault at ``point`` (fired or not)."""
        return any(f.point == point for f in self._faults)

    def on_kill(self, hook: Callable[[str | None], None]) -> None:
        """Call ``hook(call_id)`` right before a kill (``None`` for a kill before a model turn), in the order
        registered: a column that pins a race by schedule (whether a pending checkpoint write lands,
        whether a concurrent sibling call finishes, before the process dies) decides the ordering here."""
        self._before_kill.append(hook)

    def armed(self, call_id: str) -> bool:
        """Whether a kill inside the tool of ``call_id`` is still to come in this process: scheduled and not
        fired yet, or firing now (its hooks are running and the process is about to die)."""
        kills = [i for i, f in enumerate(self._faults) if f.action == "kill" and f.call_id == call_id]
        with self._lock:  # one section with the claim: a kill being claimed is seen as firing, never as done
            return any(i in self._killing or not self._fired(i) for i in kills)

    def fail_schedule(self, message: str) -> None:
        """The ordering a schedule names could not be forced: record why and end the worker (the supervisor
        reports the step as an error with this message)."""
        if self._conn is not None:
            with self._lock:
                self._conn.execute("INSERT INTO schedule_failures (message) VALUES (?)", (message,))
        os._exit(SCHEDULE_FAILED_EXIT_CODE)

    def fire(self, point: str, *, call_id: str | None = None, turn: int | None = None) -> None:
        for index, fault in enumerate(self._faults):
            if fault.point != point or fault.call_id != call_id or fault.turn != turn:
                continue
            if not self._claim(index, point):
                continue
            if fault.action == "kill":
                if not self._may_kill:
                    raise HarnessError(f"fault {point} would kill a process that is not a supervised worker")
                try:
                    for hook in self._before_kill:
                        hook(call_id)
                except Exception as exc:  # a hook that cannot force its ordering must not turn the kill into a retry
                    self.fail_schedule(f"{type(exc).__name__}: {exc}")
                os._exit(FAULT_EXIT_CODE)
            if fault.action == "raise":
                raise InjectedToolError(f"injected failure at {point}")
            raise TimeoutError(f"injected timeout at {point}")

    def _fired(self, index: int) -> bool:  # under self._lock
        if self._conn is None:
            return False
        return self._conn.execute("SELECT 1 FROM faults_fired WHERE fault_index = ?", (index,)).fetchone() is not None

    def _claim(self, index: int, point: str) -> bool:
        with self._lock:
            if self._faults[index].action == "kill":
                self._killing.add(index)  # committed as fired, but this process lives on while the kill's hooks run
            if self._conn is None:
                return True
            cursor = self._conn.execute("INSERT OR IGNORE INTO faults_fired (fault_index, point) VALUES (?, ?)", (index, point))
            if cursor.rowcount != 1:
                self._killing.discard(index)
            return cursor.rowcount == 1


def _read_column(path: str, query: str) -> list[Any]:
    """The first column of a read-only query on the faults file (a missing file or table: nothing happened)."""
    if not os.path.exists(path):
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
    try:
        return [r[0] for r in conn.execute(query)]
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def schedule_failures(path: str) -> list[str]:
    """Why a worker could not force its schedule (read by the supervisor after exit code 87)."""
    return _read_column(path, "SELECT message FROM schedule_failures ORDER BY seq")


def fired_faults(path: str) -> list[int]:
    """Indexes of the faults that fired so far (read by the supervisor)."""
    return _read_column(path, "SELECT fault_index FROM faults_fired ORDER BY fault_index")
