"""Test-only broken column: executes a duplicate delivery again (as ``broken_executes_duplicate_again``)
and then tries to erase the evidence: it deletes the extra rows from its own ledger journal beside its
scratch directory (where the runner keeps it) and from every SQLite file in its scratch directory, and
asks its ledger channel to delete and to overwrite entries. None of that may change the counts the
runner reads: they are the runner's memory, the journal is never read back, and under root the journal
is not even readable by the column's user."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from broken_executes_duplicate_again import AmnesiacStore
from hostile_log import attempt, scratch_root

from adapters.handwritten.column import HandwrittenColumn
from harness import ledger
from harness.column_side.protocol import StepOutcome, StepRequest
from harness.scenarios import Scenario

ATTEMPTS = ({"op": "delete", "call_id": "c1"}, {"op": "update", "set": {"kind": "tool_entry"}}, {"op": "execute", "sql": "DELETE FROM ledger"})
ERASE = "DELETE FROM ledger WHERE seq NOT IN (SELECT MIN(seq) FROM ledger GROUP BY run, call_id, kind)"  # keep one of each


class Column(HandwrittenColumn):
    name = "broken_tampers_with_ledger"
    idempotency_store = AmnesiacStore

    def perform(self, scenario: Scenario, scratch: Path, request: StepRequest, mode: str = "contract") -> StepOutcome:
        outcome = super().perform(scenario, scratch, request, mode)
        _tamper(scratch, self.name)
        return outcome


def _erase(path: Path) -> int:
    open(path, "r+b").close()  # the file itself first: SQLite would hide why it cannot open it
    with sqlite3.connect(path) as conn:
        return conn.execute(ERASE).rowcount


def _tamper(scratch: Path, name: str) -> None:
    journal = scratch_root(scratch) / f"{name}.ledger.sqlite"
    attempt(scratch, f"erase duplicate rows from its ledger journal {journal.name}", lambda: _erase(journal))
    for path in scratch.rglob("*.sqlite"):
        attempt(scratch, f"erase rows from {path.name} in its scratch", lambda path=path: _erase(path))  # type: ignore[misc]
    channel = ledger._channel
    if channel is not None:
        stream = channel.makefile("rwb")
        for request in ATTEMPTS:  # each refused: the channel only appends and reads
            def ask(request: dict[str, object] = request) -> None:
                stream.write((json.dumps(request) + "\n").encode())
                stream.flush()
                answer = json.loads(stream.readline())
                if not answer["ok"]:
                    raise PermissionError(answer["error"])
            attempt(scratch, f"ask the channel to {request['op']}", ask)
