"""Opening the engine's SQLite files the same way everywhere."""

from __future__ import annotations

import sqlite3
import time

BUSY_TIMEOUT_S = 30.0


def connect(path: str) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL, synchronous=NORMAL.

    The crash model is process death, not power loss, so NORMAL is durable enough.
    Switching a new file to WAL needs a lock that SQLite's busy timeout does not wait
    for, so two processes opening a fresh file together would see "database is
    locked" at once: that one step is retried until the busy timeout has passed.
    """
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    delay = 0.001
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                conn.close()
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn
