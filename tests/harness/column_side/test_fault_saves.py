"""``FaultPlan.saved``: a column's state saves numbered over every process of a run (the faults file), the kill at the
Nth one, and each recorded as a kill point passed when the crash sweep records them."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.column_side.fixtures import faults
from harness.column_side.fixtures.faults import FaultPlan, open_faults_db, passes_after
from harness.errors import HarnessError
from harness.scenarios import Fault

KILL_AT_3 = [Fault("state.kill_after_save", save=3)]


def test_saves_are_numbered_across_the_processes_of_a_run_and_the_kill_comes_at_its_number(tmp_path: Path) -> None:
    path = str(tmp_path / faults.FAULTS_FILE)
    first = FaultPlan(KILL_AT_3, open_faults_db(path), may_kill=False)  # may_kill=False: the kill shows as a refusal to kill
    first.saved()
    first.saved()
    second = FaultPlan(KILL_AT_3, open_faults_db(path), may_kill=False)  # the next driver step's process
    with pytest.raises(HarnessError, match="state.kill_after_save would kill"):
        second.saved()  # the run's third save, the first of this process
    second.saved()  # the fault fired once: the fourth save goes on


def test_without_a_faults_file_a_process_counts_its_own_saves() -> None:
    plan = FaultPlan(KILL_AT_3, None, may_kill=False)
    plan.saved()
    plan.saved()
    with pytest.raises(HarnessError):
        plan.saved()


def test_each_save_is_a_kill_point_passed_when_the_sweep_records_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(faults, "_record_passes", True)
    path = str(tmp_path / faults.FAULTS_FILE)
    plan = FaultPlan([], open_faults_db(path), may_kill=False)
    plan.saved()
    plan.fire("model.kill_before_turn", turn=0)
    plan.saved()
    assert [p[1:] for p in passes_after(path, 0)] == [("state.kill_after_save", None, None, 1), ("model.kill_before_turn", None, 0, None),
                                                      ("state.kill_after_save", None, None, 2)]  # fmt: skip
