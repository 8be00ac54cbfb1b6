"""Test-only hostile column: the honest engine, which at its first step forks a process that leaves the column's process
group (``setsid``), keeps the column's output open and sleeps, to outlive the run and meet the next run's column under
the same ids. As root the runner ends every process of the column's user when the column ends: the run returns at
once and nothing of the column is left."""

from __future__ import annotations

import os
import time
from pathlib import Path

from hostile_log import attempt

from adapters.handwritten.column import HandwrittenColumn
from harness.column_side.protocol import StepOutcome, StepRequest
from harness.scenarios import Scenario

LINGER_S = 120.0


class Column(HandwrittenColumn):
    name = "broken_leaves_a_process"

    def perform(self, scenario: Scenario, scratch: Path, request: StepRequest, mode: str = "contract") -> StepOutcome:
        if request.index == 0 and not (scratch.parents[1] / "hostile.jsonl").exists():
            attempt(scratch, "leave a process behind", lambda: _linger(scratch.parents[1] / "lingering.pid"))
        return super().perform(scenario, scratch, request, mode)


def _linger(pid_file: Path) -> int:
    pid = os.fork()
    if pid == 0:
        os.setsid()  # out of the group the runner kills
        pid_file.write_text(str(os.getpid()), encoding="utf-8")
        time.sleep(LINGER_S)  # holding the column's standard output, as every child does
        os._exit(0)
    return pid
