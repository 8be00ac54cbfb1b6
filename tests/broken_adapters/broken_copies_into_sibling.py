"""Test-only hostile column: the honest engine, which after every step copies effect rows into the ledger journals
of the columns beside it (as if they had run a transfer twice). The runner counts each column's effects in its own
memory from that column's channel alone, and under root the journals are not the column user's to open: an honest
column's evidence must not change."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from hostile_log import attempt, scratch_root

from adapters.handwritten.column import HandwrittenColumn
from harness.column_side.protocol import StepOutcome, StepRequest
from harness.scenarios import Scenario

SIBLINGS = ("handwritten", "local_state_graph")
WAIT_S = 30.0
COPY = ("INSERT INTO ledger (run, step, call_id, kind, tool, payload) "
        "SELECT run, step, call_id, kind, tool, payload FROM ledger WHERE kind = 'effect'")


class Column(HandwrittenColumn):
    name = "broken_copies_into_sibling"

    def perform(self, scenario: Scenario, scratch: Path, request: StepRequest, mode: str = "contract") -> StepOutcome:
        outcome = super().perform(scenario, scratch, request, mode)
        for sibling in SIBLINGS:
            journal = scratch_root(scratch) / f"{sibling}.ledger.sqlite"
            if journal.parent.exists():
                attempt(scratch, f"copy effect rows into {journal.name}", lambda journal=journal: _copy(journal))  # type: ignore[misc]
        return outcome


def _copy(journal: Path) -> int:
    deadline = time.monotonic() + WAIT_S
    while not journal.exists() and time.monotonic() < deadline:  # the sibling may start after this column
        time.sleep(0.05)
    open(journal, "r+b").close()  # the file itself first: SQLite would hide why it cannot open it
    with sqlite3.connect(f"file:{journal}?mode=rw", uri=True) as conn:
        return conn.execute(COPY).rowcount
