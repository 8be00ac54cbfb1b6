"""The base column's record of how the framework's last run ended (``adapters/last_run.py``), on real files."""

from __future__ import annotations

import os
from pathlib import Path

from adapters.last_run import LastRun
from harness.column_side.protocol import StepOutcome

DONE = StepOutcome("completed", "completed")


def _killed(record: LastRun) -> None:
    """A framework call that dies inside, as a kill does: in a forked child that ends with ``os._exit``."""
    pid = os.fork()
    if pid == 0:
        record.run(lambda: os._exit(9))
    os.waitpid(pid, 0)


def test_a_run_killed_inside_the_framework_reads_crashed_until_a_run_returns(tmp_path: Path) -> None:
    record = LastRun(tmp_path)
    assert record.seen(DONE) == DONE  # nothing ran yet: the framework's reading stands
    _killed(record)
    assert record.seen(DONE) == StepOutcome("crashed", "crashed")
    assert record.seen(DONE.refused("not_pending")) == StepOutcome("refused", "crashed", refusal="not_pending")
    waiting = StepOutcome("awaiting_approval", "awaiting_approval")
    assert record.seen(waiting) == waiting  # a state that waits on a decision is the framework's own reading
    record.run(lambda: DONE.refused("agent is not waiting"))  # refused before any run started: still the killed run's record
    assert record.seen(DONE).session_status == "crashed"
    record.run(lambda: DONE)
    assert record.seen(DONE) == DONE


def test_a_run_stopped_by_the_bound_stays_stopped_and_a_restore_brings_back_the_snapshots_record(tmp_path: Path) -> None:
    record, snapshot = LastRun(tmp_path), tmp_path / "s1.json"
    record.run(lambda: StepOutcome("stopped_max_steps", "stopped_max_steps"))
    assert record.seen(DONE) == StepOutcome("stopped_max_steps", "stopped_max_steps")
    record.snapshot(snapshot)
    _killed(record)
    assert record.seen(DONE).session_status == "crashed"
    record.restore(snapshot)
    assert record.seen(DONE).session_status == "stopped_max_steps"
    record.path.unlink()
    record.snapshot(snapshot)  # a snapshot with no record restores none
    _killed(record)
    record.restore(snapshot)
    assert record.seen(DONE) == DONE


def test_an_exception_out_of_the_framework_removes_the_record(tmp_path: Path) -> None:
    record = LastRun(tmp_path)
    _killed(record)

    def raises() -> StepOutcome:
        raise RuntimeError("the framework's own exception")

    try:
        record.run(raises)
    except RuntimeError:
        pass
    assert not record.path.exists() and record.seen(DONE) == DONE
