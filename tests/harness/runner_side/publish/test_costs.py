"""The cost of a run as the comparison prints it and keeps it in timings.json: per column and per scenario run."""

from __future__ import annotations

from harness.runner_side.publish.costs import cost_lines, slowest_scenarios, timings_document

TIMINGS = {
    "handwritten": {"total_s": 5.0, "import_s": 0.1, "finished_at_s": 5.0, "scenarios_s": {"contract/a": 0.5, "contract/b": 0.2}},
    "langgraph": {"total_s": 30.0, "import_s": 2.0, "finished_at_s": 40.0, "scenarios_s": {"defaults/a": 1.5, "contract/a@kill_first": 0.9}},
}


def test_each_column_gets_its_share_of_the_run_and_the_slowest_scenario_runs_come_first() -> None:
    document = timings_document(TIMINGS, 40.0, slowest=3)
    assert document["wall_s"] == 40.0
    assert document["columns"]["langgraph"]["share"] == 0.75 and document["columns"]["handwritten"]["share"] == 0.125
    assert [(r["column"], r["run"]) for r in document["slowest_scenarios"]] == [
        ("langgraph", "defaults/a"), ("langgraph", "contract/a@kill_first"), ("handwritten", "contract/a")
    ]
    assert slowest_scenarios({"x": {}}) == []


def test_the_printed_table_lists_columns_by_when_they_finished() -> None:
    lines = cost_lines(TIMINGS, 40.0, slowest=1)
    assert lines[0].startswith("cost of this run: 40.0 s wall clock")
    rows = [line.split() for line in lines[2:4]]
    assert [r[0] for r in rows] == ["handwritten", "langgraph"]
    assert rows[1][:4] == ["langgraph", "30.0", "75%", "40.0"]
    assert lines[-2:] == ["  slowest scenario runs:", "      1.5 s  langgraph/defaults/a"]


def test_a_column_that_was_not_measured_has_no_times_and_still_a_row() -> None:
    lines = cost_lines({"agentscope": {}}, 10.0)
    assert lines[2].split() == ["agentscope", "0.0", "0%", "0.0", "0.0", "0"]
