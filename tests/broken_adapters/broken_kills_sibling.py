"""Test-only hostile column: the honest engine, which in its first step waits (bounded) for a sibling column's
process to appear, then kills it, and checks whether it may signal the runner (signal 0: the permission check
alone, so a run without separation does not lose its runner). Under root each column runs under a user of its
own: both must be refused, and the sibling's evidence must not change."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from hostile_log import attempt

from adapters.handwritten.column import HandwrittenColumn
from harness.column_side.protocol import StepOutcome, StepRequest
from harness.scenarios import Scenario

WAIT_S = 30.0
SIBLINGS = ("adapters.handwritten.column:HandwrittenColumn", "adapters.local_state_graph.column")


class Column(HandwrittenColumn):
    name = "broken_kills_sibling"

    def perform(self, scenario: Scenario, scratch: Path, request: StepRequest, mode: str = "contract") -> StepOutcome:
        if request.index == 0 and not (scratch.parents[1] / "hostile.jsonl").exists():
            for pid in _siblings():
                attempt(scratch, "kill a sibling column's process", lambda pid=pid: os.kill(pid, signal.SIGKILL))  # type: ignore[misc]
            attempt(scratch, "signal the runner", lambda: os.kill(_parent(os.getppid()), 0))
        return super().perform(scenario, scratch, request, mode)


def _siblings() -> list[int]:
    """The processes of the sibling columns, as soon as any exists (at most ``WAIT_S``)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        found = []
        for entry in os.listdir("/proc"):
            try:
                words = open(f"/proc/{entry}/cmdline", "rb").read().split(b"\0")
            except (OSError, ValueError):
                continue
            column = next((words[i + 1].decode() for i, w in enumerate(words[:-1]) if w == b"--column"), "")
            if any(column.startswith(s) for s in SIBLINGS):
                found.append(int(entry))
        if found:
            return found
        time.sleep(0.05)
    return []


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])
