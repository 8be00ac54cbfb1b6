"""A column's modes split over processes (``runner.processes``) and their results merged back (``runner.merge_results``)."""

from __future__ import annotations

from harness.columns import known_columns
from harness.runner_side.run.runner import ColumnResult, merge_results, processes

COLUMNS = known_columns()


def test_a_third_party_columns_wire_mode_runs_in_a_process_of_its_own() -> None:
    assert processes(COLUMNS["langgraph"], ["defaults", "contract", "wire"]) == [["defaults", "contract"], ["wire"]]
    assert processes(COLUMNS["langgraph@0.6.11"], ["wire"]) == [["wire"]]
    assert processes(COLUMNS["langgraph"], ["defaults", "contract"]) == [["defaults", "contract"]]
    assert processes(COLUMNS["pydantic_ai"], ["defaults", "contract", "wire", "mcp"]) == [["defaults", "contract"], ["wire"], ["mcp"]]
    assert processes(COLUMNS["pydantic_ai"], ["mcp"]) == [["mcp"]]
    assert processes(COLUMNS["handwritten"], ["contract", "wire"]) == [["contract", "wire"]]  # the engine imports nothing heavy


def test_two_processes_results_merge_into_the_columns() -> None:
    column = COLUMNS["langgraph"]
    first = ColumnResult(column, "measured", modes={"defaults": {"a": {}}, "contract": {"a": {}}}, undeclared_races=["x"],
                         timings={"import_s": 1.0, "total_s": 10.0, "defaults_s": 4.0, "scenarios_s": {"defaults/a": 1.0}},
                         constants={"step_limit": {"ref": "r", "value": 1}})
    second = ColumnResult(column, "measured", modes={"wire": {"a": {}}}, undeclared_races=["y"], not_applicable={"wire": {"b": "why"}},
                          timings={"import_s": 2.0, "total_s": 12.0, "wire_s": 9.0, "scenarios_s": {"wire/a": 2.0}})
    both = merge_results(first, second)
    assert sorted(both.modes) == ["contract", "defaults", "wire"] and both.undeclared_races == ["x", "y"]
    assert both.not_applicable == {"wire": {"b": "why"}} and both.constants == first.constants
    assert both.timings == {"import_s": 3.0, "total_s": 12.0, "defaults_s": 4.0, "wire_s": 9.0, "scenarios_s": {"defaults/a": 1.0, "wire/a": 2.0}}


def test_a_process_not_measured_makes_the_column_not_measured() -> None:
    column = COLUMNS["langgraph"]
    ok, failed = ColumnResult(column, "measured", modes={"wire": {}}), ColumnResult(column, "not-measured", reason="the wire process died")
    assert merge_results(ok, failed) is failed and merge_results(failed, ok) is failed
