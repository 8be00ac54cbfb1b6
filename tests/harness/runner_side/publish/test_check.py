"""--check's diff: per observable, exact everywhere (every scenario, every sub-case, every summary)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from harness.columns import ROOT
from harness.runner_side.publish.drift import diff_documents


def _document() -> dict[str, Any]:
    cell = {"handwritten": 1, "framework": 1, "equal": True}
    scenario = {"status": "ok", "scenario": "s1", "schedule": None, "columns": {"side_effects": cell}, "trace": []}
    summary = {"scenarios": 1, "errors": 0, "applicable_cells": 1, "equal_cells": 1, "not_equal_cells": 0}
    return {"framework": "x", "versions": {"a": "1"}, "modes": {"defaults": {"summary": summary, "scenarios": {"s1": scenario}}}}


def test_drift_is_named_per_observable_and_part() -> None:
    committed = _document()
    fresh = copy.deepcopy(committed)
    scenario = fresh["modes"]["defaults"]["scenarios"]["s1"]
    scenario["columns"]["side_effects"] = {"handwritten": 1, "framework": 2, "equal": False, "reason": "r"}
    scenario["trace"] = [{"kind": "x"}]
    fresh["versions"] = {"a": "2"}
    assert diff_documents("x.json", committed, fresh) == [
        'x.json / versions: was {"a": "1"}, now {"a": "2"}',
        'x.json / defaults / s1 / side_effects: framework was 1, now 2; equal was true, now false; reason was null, now "r"',
        "x.json / defaults / s1 / trace (was 0 events, now 1): first difference at event 0\n"
        '    + [0] {"kind":"x"}',
    ]


def test_an_edit_of_the_hand_written_side_of_a_cell_is_named_as_such() -> None:
    committed = _document()
    fresh = copy.deepcopy(committed)
    fresh["modes"]["defaults"]["scenarios"]["s1"]["columns"]["side_effects"]["handwritten"] = 3
    assert diff_documents("x.json", committed, fresh) == ["x.json / defaults / s1 / side_effects: handwritten was 1, now 3"]


def test_a_summary_is_compared_on_its_own() -> None:
    committed = _document()
    fresh = copy.deepcopy(committed)
    fresh["modes"]["defaults"]["summary"]["equal_cells"] = 0
    assert diff_documents("x.json", committed, fresh) == ["x.json / defaults / summary / equal_cells: was 1, now 0"]


def test_nothing_committed_yet_is_drift() -> None:
    assert diff_documents("x.json", None, _document()) == ["x.json: not committed yet"]


NOT_COLUMNS = ("evidence.schema.json", "availability.json", "timings.json", "sweep.json")


def _edited(document: dict, path: tuple[str, str, str, str]) -> dict:
    """``document`` with the cell at ``(mode, scenario key, part, observable)`` edited: copied along that path only
    (a deep copy of the whole document per cell made this test cost minutes), the rest shared and never written."""
    mode, key, part, observable = path
    body = document["modes"][mode]
    record = body["scenarios"][key]
    cells = {**record[part], observable: {"edited": record[part][observable]}}
    scenarios = {**body["scenarios"], key: {**record, part: cells}}
    return {**document, "modes": {**document["modes"], mode: {**body, "scenarios": scenarios}}}


@pytest.mark.slow  # edits every cell of every committed evidence file
@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "evidence").glob("*.json") if p.name not in NOT_COLUMNS))
def test_editing_any_committed_cell_or_summary_is_named(name: str) -> None:
    """Every cell of every scenario and sub-case, and every summary, of the committed evidence: an edit is drift, named."""
    committed = json.loads((ROOT / "evidence" / name).read_text(encoding="utf-8"))
    edits = 0
    for mode, body in committed["modes"].items():
        edited = copy.deepcopy(committed)
        edited["modes"][mode]["summary"]["scenarios"] += 1
        [line] = diff_documents(name, committed, edited)
        assert line.startswith(f"{name} / {mode} / summary / scenarios:")
        for key, record in body["scenarios"].items():
            for part in ("columns", "actual"):
                for observable in record.get(part, {}):
                    edited = _edited(committed, (mode, key, part, observable))
                    [line] = diff_documents(name, committed, edited)
                    assert line.startswith(f"{name} / {mode} / {key} / {observable}:")
                    edits += 1
    assert edits > 0
