"""Scenarios the exploration found (``scripts/explore.py``, shrunk by it), kept as regressions of the reference columns:
each exposed a defect in our own code, now fixed. The engine meets each one's ``expected`` block, the local state graph
equals the engine on every observable, and every contract property holds. (They are not yet in ``scenarios/``: a third-
party column's difference on them needs a rule and a probe first; see docs/explore.md.)

- ``approval_for_identical_call``: the engine's tokens bound no call id, so an approval made for one of two identical
  emails was taken for the other (property ``approved_high_risk_only``; seed 2, example 4).

(``new_event_while_awaiting_approval``, ``refused_event_delivered_again`` and ``snapshot_of_crashed_run``, found the
same way, are in ``scenarios/``.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.columns import ROOT
from harness.runner_side.explore.search import run_batch
from harness.runner_side.observe.observables import expected_names
from harness.scenarios import load_expectations

pytestmark = pytest.mark.slow  # the reference columns' processes through the runner

FOUND = ROOT / "tests" / "scenarios" / "explore"


def test_the_reference_columns_meet_what_the_exploration_found(tmp_path: Path) -> None:
    batch = run_batch(["local_state_graph"], FOUND, tmp_path, log=lambda _: None)
    assert batch.not_measured == {} and batch.unplayable == []
    assert batch.findings == []  # no property failure, no race, the local graph equal to the engine
    assert batch.runs == {("handwritten", "contract"): 1, ("handwritten", "wire"): 1, ("local_state_graph", "contract"): 1}  # the engine over the wire too


def test_the_engine_meets_each_expected_block(tmp_path: Path) -> None:
    from harness.columns import known_columns
    from harness.runner_side.run.runner import run_column

    result = run_column(known_columns()["handwritten"], ["contract"], FOUND, tmp_path, scenario_count=1)
    for scenario_id, expected in load_expectations(FOUND).items():
        actual = result.modes["contract"][scenario_id]["observables"]
        assert {n: actual[n] for n in expected_names(expected)} == expected, scenario_id
