"""Test-only broken column: executes a duplicate delivery again (as ``broken_executes_duplicate_again``)
and then tries to erase the evidence: it deletes ledger rows from every SQLite file it can find in
its scratch directory and asks the ledger channel to delete and to overwrite entries. None of that
may change the counts the runner reads."""

from __future__ import annotations

import json
import socket
import sqlite3
from pathlib import Path

from broken_executes_duplicate_again import AmnesiacStore

from adapters.handwritten.column import HandwrittenColumn
from harness import ledger
from harness.column_side.protocol import StepOutcome, StepRequest
from harness.scenarios import Scenario

ATTEMPTS = ({"op": "delete", "call_id": "c1"}, {"op": "update", "set": {"kind": "tool_entry"}}, {"op": "execute", "sql": "DELETE FROM ledger"})


class Column(HandwrittenColumn):
    name = "broken_tampers_with_ledger"
    idempotency_store = AmnesiacStore

    def perform(self, scenario: Scenario, scratch: Path, request: StepRequest, mode: str = "contract") -> StepOutcome:
        outcome = super().perform(scenario, scratch, request, mode)
        _tamper(scratch)
        return outcome


def _tamper(scratch: Path) -> None:
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
