"""--check's drift is readable: a changed list by its first differing item in context, long values cut
around the difference, and a drift found in every column printed once."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from harness.runner_side.publish.drift import collapse_common, diff_documents, window
from tests.harness.runner_side.judge.facts_builder import run, step


def _event(n: int) -> dict[str, Any]:
    return {"driver_step": n // 3, "kind": "super_step", "node": f"node_{n}"}


def _document(trace_length: int = 8) -> dict[str, Any]:
    cell = {"handwritten": 1, "framework": 1, "equal": True}
    ran = run({}, *(step(action, entered={"c1": 1}, executed={"c1": 1}, effects={"c1": 1}) for action in ("run", "resume")))
    scenario = {
        "status": "ok",
        "columns": {"side_effects": cell},
        "trace": [_event(n) for n in range(trace_length)],
        "steps": ran.steps,
        "facts": ran.facts,
        "reasons": [{"rule": "r1", "claims": ["a"]}, {"rule": "r2", "claims": ["b"]}],
    }
    summary = {"equal_cells": 1}
    return {"framework": "x", "modes": {"defaults": {"summary": summary, "scenarios": {"s1": scenario}}}}


def _lines(drift: list[str]) -> list[str]:
    return [line for entry in drift for line in entry.split("\n")]


def test_a_changed_trace_shows_the_first_differing_event_with_one_before_and_one_after() -> None:
    committed = _document()
    fresh = copy.deepcopy(committed)
    fresh["modes"]["defaults"]["scenarios"]["s1"]["trace"][4]["kind"] = "tool_result"
    [drift] = diff_documents("x.json", committed, fresh)
    assert drift.split("\n") == [
        "x.json / defaults / s1 / trace (8 events): first difference at event 4",
        '      [3] {"driver_step":1,"kind":"super_step","node":"node_3"}',
        '    - [4] {"driver_step":1,"kind":"super_step","node":"node_4"}',
        '    + [4] {"driver_step":1,"kind":"tool_result","node":"node_4"}',
        '      [5] {"driver_step":1,"kind":"super_step","node":"node_5"}',
    ]


def test_an_inserted_event_is_shown_as_added_between_its_neighbours_and_later_differences_are_counted() -> None:
    committed = _document()
    fresh = copy.deepcopy(committed)
    trace = fresh["modes"]["defaults"]["scenarios"]["s1"]["trace"]
    trace.insert(2, {"kind": "new"})
    trace[-1]["node"] = "last"
    [drift] = diff_documents("x.json", committed, fresh)
    assert drift.split("\n") == [
        "x.json / defaults / s1 / trace (was 8 events, now 9): first difference at event 2; 1 more difference after it",
        '      [1] {"driver_step":0,"kind":"super_step","node":"node_1"}',
        '    + [2] {"kind":"new"}',
        '      [2/3] {"driver_step":0,"kind":"super_step","node":"node_2"}',
    ]


@pytest.mark.parametrize(("part", "noun"), [("steps", "step"), ("facts", "fact"), ("reasons", "reason")])
def test_steps_facts_and_reasons_are_shown_like_the_trace(part: str, noun: str) -> None:
    committed = _document()
    fresh = copy.deepcopy(committed)
    items = fresh["modes"]["defaults"]["scenarios"]["s1"][part]
    items[0] = {**items[0], "changed": True}
    [drift] = diff_documents("x.json", committed, fresh)
    first, *rest = drift.split("\n")
    assert first == f"x.json / defaults / s1 / {part} (2 {noun}s): first difference at {noun} 0"
    assert [line[:9] for line in rest] == ["    - [0]", "    + [0]", "      [1]"]
    assert '"changed":true' in rest[1] and '"changed"' not in rest[0]


def test_a_long_event_is_cut_around_its_difference_and_every_line_fits_100_columns() -> None:
    committed = _document()
    committed["modes"]["defaults"]["scenarios"]["s1"]["trace"][4]["content"] = "x" * 300 + "END" + "y" * 300
    fresh = copy.deepcopy(committed)
    fresh["modes"]["defaults"]["scenarios"]["s1"]["trace"][4]["content"] = "x" * 300 + "FIN" + "y" * 300
    [drift] = diff_documents("x.json", committed, fresh)
    lines = drift.split("\n")
    assert all(len(line) < 100 for line in lines[1:])
    removed, added = lines[2], lines[3]
    assert "END" in removed and "FIN" in added
    assert removed.index("END") == added.index("FIN")  # the difference sits at the same column
    assert "[4] …" in removed and removed.endswith("…")


def test_a_long_value_is_shown_around_the_point_of_difference_not_cut_where_it_differs() -> None:
    committed = _document()
    committed["modes"]["defaults"]["scenarios"]["s1"]["columns"]["side_effects"]["framework"] = {
        f"c{n}": {"effects": 0, "executed": n} for n in range(1, 12)}
    fresh = copy.deepcopy(committed)
    fresh["modes"]["defaults"]["scenarios"]["s1"]["columns"]["side_effects"]["framework"]["c7"]["effects"] = 1
    [drift] = diff_documents("x.json", committed, fresh)
    head, was, now = drift.split("\n")
    assert head == "x.json / defaults / s1 / side_effects:"
    assert was.startswith("    framework was …") and now.startswith(" " * len("    framework ") + "now …")
    assert '"c7": {"effects": 0' in was and '"c7": {"effects": 1' in now
    assert was.endswith("…") and now.endswith("…") and max(len(was), len(now)) <= 100


def test_short_values_stay_on_one_line() -> None:
    committed = _document()
    fresh = copy.deepcopy(committed)
    fresh["modes"]["defaults"]["scenarios"]["s1"]["status"] = "error"
    fresh["framework"] = "y"
    assert diff_documents("x.json", committed, fresh) == [
        'x.json / framework: was "x", now "y"',
        'x.json / defaults / s1 / status: was "ok", now "error"',
    ]


def test_window_marks_only_the_sides_it_cut() -> None:
    assert window("abc", "abd", 10) == ("abc", "abd")
    head_a, head_b = window("a" + "x" * 50, "b" + "x" * 50, 20)
    assert head_a == "a" + "x" * 19 + "…" and head_b.startswith("b")
    tail_a, tail_b = window("x" * 50 + "a", "x" * 50 + "b", 20)
    assert tail_a == "…" + "x" * 19 + "a" and tail_b.endswith("b")
    mid_a, _ = window("x" * 50 + "a" + "y" * 50, "x" * 50 + "b" + "y" * 50, 21)
    assert mid_a.startswith("…") and mid_a.endswith("…") and "a" in mid_a


def _drift_by_document(names: list[str], edit_in: dict[str, int]) -> dict[str, list[str]]:
    """Each document's drift after setting s1's framework value to ``edit_in[name]``."""
    out = {}
    for name in names:
        committed = _document()
        fresh = copy.deepcopy(committed)
        fresh["modes"]["defaults"]["scenarios"]["s1"]["columns"]["side_effects"]["framework"] = edit_in[name]
        fresh["modes"]["defaults"]["summary"]["equal_cells"] = 0
        out[name] = diff_documents(name, committed, fresh)
    return out


def test_a_drift_found_in_every_column_is_printed_once() -> None:
    drift = _drift_by_document(["a.json", "b.json", "c.json"], {"a.json": 2, "b.json": 2, "c.json": 2})
    assert collapse_common(drift) == [
        "in every column / defaults / summary / equal_cells: was 1, now 0",
        "in every column / defaults / s1 / side_effects: framework was 1, now 2",
    ]


def test_a_drift_with_other_values_in_one_column_is_printed_per_column() -> None:
    drift = _drift_by_document(["a.json", "b.json", "c.json"], {"a.json": 2, "b.json": 2, "c.json": 3})
    assert collapse_common(drift) == [
        "in every column / defaults / summary / equal_cells: was 1, now 0",
        "a.json / defaults / s1 / side_effects: framework was 1, now 2",
        "b.json / defaults / s1 / side_effects: framework was 1, now 2",
        "c.json / defaults / s1 / side_effects: framework was 1, now 3",
    ]


def test_the_reference_engine_is_not_a_column_and_one_column_is_not_every_column() -> None:
    drift = _drift_by_document(["a.json", "b.json"], {"a.json": 2, "b.json": 2})
    drift["handwritten.json"] = ["handwritten.json / defaults / s1 / trace changed"]
    assert collapse_common(drift)[-1] == "handwritten.json / defaults / s1 / trace changed"
    assert len(collapse_common(drift)) == 3
    single = _drift_by_document(["a.json"], {"a.json": 2})
    assert collapse_common(single) == single["a.json"]


def test_no_drift_collapses_to_nothing() -> None:
    assert collapse_common({"a.json": [], "b.json": [], "handwritten.json": []}) == []
    assert collapse_common({}) == []
