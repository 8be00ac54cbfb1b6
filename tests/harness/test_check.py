"""--check's diff: per observable, and tolerant only of scenarios their column declares racing."""

from __future__ import annotations

import copy
from typing import Any

from harness.check import diff_documents


def _document(races: bool) -> dict[str, Any]:
    cell = {"handwritten": 1, "framework": 1, "equal": True}
    scenario = {"status": "ok", "races": races, "columns": {"side_effects": cell}, "trace": []}
    return {"framework": "x", "versions": {"a": "1"}, "modes": {"defaults": {"summary": {}, "scenarios": {"s1": scenario}}}}


def _drifted(document: dict[str, Any]) -> dict[str, Any]:
    fresh = copy.deepcopy(document)
    scenario = fresh["modes"]["defaults"]["scenarios"]["s1"]
    scenario["columns"]["side_effects"] = {"handwritten": 1, "framework": 2, "equal": False, "reason": "r"}
    scenario["trace"] = [{"kind": "x"}]
    return fresh


def test_drift_is_named_per_observable_and_part() -> None:
    committed = _document(races=False)
    assert diff_documents("x.json", committed, _drifted(committed)) == (
        ["x.json / defaults / s1 / side_effects: framework was 1, now 2 (equal True -> False)", "x.json / defaults / s1 / trace changed"],
        [],
    )


def test_a_racing_scenario_drifts_without_failing_but_other_parts_still_fail() -> None:
    committed = _document(races=True)
    fresh = _drifted(committed)
    fresh["versions"] = {"a": "2"}
    drift, tolerated = diff_documents("x.json", committed, fresh)
    assert drift == ['x.json / versions: was {"a": "1"}, now {"a": "2"}']
    assert len(tolerated) == 2


def test_nothing_committed_yet_is_drift() -> None:
    assert diff_documents("x.json", None, _document(False)) == (["x.json: not committed yet"], [])
