"""Test-only broken column: executes a duplicate delivery again (as ``broken_executes_duplicate_again``)
and then tries to erase the evidence: it deletes ledger rows from every SQLite file it can find in
its scratch directory and asks the ledger channel to delete and to overwrite entries. None of that
may change the counts the runner reads."""

from __future__ import annotations

import json
import socket
import sqlite3
from pathlib import Path
from typing import Any

import broken_executes_duplicate_again as duplicate  # noqa: F401  (installs the amnesiac store)

from harness import handwritten_column, ledger
from harness.scenarios import Scenario

COLUMN = "broken_tampers_with_ledger"
MODES = handwritten_column.MODES
facts = handwritten_column.facts
ATTEMPTS = ({"op": "delete", "call_id": "c1"}, {"op": "update", "set": {"kind": "tool_entry"}}, {"op": "execute", "sql": "DELETE FROM ledger"})


def perform(scenario: Scenario, scratch: Path, request: dict[str, Any], mode: str = "contract") -> dict[str, Any]:
    outcome = handwritten_column.perform(scenario, scratch, request, mode)
    for path in scratch.rglob("*.sqlite"):
        conn = sqlite3.connect(path)
        try:
            conn.execute("DELETE FROM ledger")
            conn.commit()
        except sqlite3.OperationalError:
            pass  # no ledger table in the column's own files
        finally:
            conn.close()
    binding = ledger._bound
    if binding is not None:
        with socket.socket(socket.AF_UNIX) as channel:
            channel.connect(binding.address)
            stream = channel.makefile("rwb")
            for attempt in ATTEMPTS:  # each refused: the channel only appends and reads
                stream.write((json.dumps({**attempt, "run": binding.run}) + "\n").encode())
                stream.flush()
                stream.readline()
    return outcome
