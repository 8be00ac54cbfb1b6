"""The comparator is shown to fail: deliberately broken columns turn their cells to ``equal: false``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.columns import ROOT, Column, known_columns
from harness.runner_side.judge.cells import cell, compare_scenario, describe_difference
from harness.runner_side.observe.observables import OBSERVABLES
from harness.runner_side.publish.evidence import column_document, validation_errors
from harness.runner_side.run.runner import ColumnResult, run_column
from harness.scenarios import Scenario, load_scenarios

BROKEN_DIR = ROOT / "tests" / "broken_adapters"
# broken column -> (the scenario that exposes it, the contract cell that must turn false)
CASES = {
    "broken_executes_before_approval": ("high_risk_approved", "pre_approval_state"),
    "broken_writes_before_pause": ("high_risk_in_parallel_batch", "pre_approval_state"),
    "broken_reexecutes_on_resume": ("side_effect_before_checkpoint", "checkpoint_after_interrupt"),
    "broken_coerces_arguments": ("validation_before_execution", "schema_failure_side_effects"),
    "broken_executes_duplicate_again": ("duplicate_call_id", "idempotent_replay"),
    "broken_tampers_with_ledger": ("duplicate_call_id", "side_effects"),
}


@pytest.fixture(scope="module")
def scenarios_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("scenarios")
    for scenario_id in {s for s, _ in CASES.values()}:
        shutil.copy(ROOT / "scenarios" / f"{scenario_id}.json", directory / f"{scenario_id}.json")
    return directory


def _scenarios(directory: Path) -> dict[str, Scenario]:
    return {s.id: s for s in load_scenarios(directory)}


@pytest.fixture(scope="module")
def reference(scenarios_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> ColumnResult:
    result = run_column(known_columns()["handwritten"], ["contract"], scenarios_dir, tmp_path_factory.mktemp("ref"), scenario_count=len(CASES))
    assert result.status == "measured", result.reason
    return result


@pytest.mark.slow  # column processes through the runner
@pytest.mark.parametrize("broken", sorted(CASES))
def test_a_broken_column_turns_its_cell_false(broken: str, scenarios_dir: Path, reference: ColumnResult, tmp_path: Path) -> None:
    scenario_id, contract_column = CASES[broken]
    column = Column(broken, broken, "project", "test-only broken adapter")
    result = run_column(column, ["contract"], scenarios_dir, tmp_path, scenario_count=len(CASES), extra_sys_path=[BROKEN_DIR])
    assert result.status == "measured", result.reason
    document = column_document(result, reference, _scenarios(scenarios_dir))
    assert validation_errors(document) == []
    the_cell = document["modes"]["contract"]["scenarios"][scenario_id]["columns"][contract_column]
    assert the_cell["equal"] is False, the_cell
    assert the_cell["reason"]
    assert document["modes"]["contract"]["summary"]["not_equal_cells"] >= 1


def _cell(broken: str, scenarios_dir: Path, reference: ColumnResult, tmp_path: Path, scenario_id: str, name: str) -> dict:
    column = Column(broken, broken, "project", "test-only broken adapter")
    result = run_column(column, ["contract"], scenarios_dir, tmp_path, scenario_count=len(CASES), extra_sys_path=[BROKEN_DIR])
    assert result.status == "measured", result.reason
    return column_document(result, reference, _scenarios(scenarios_dir))["modes"]["contract"]["scenarios"][scenario_id]["columns"][name]


@pytest.mark.slow  # column processes through the runner
def test_a_pause_that_comes_after_the_write_is_caught_at_the_pause(scenarios_dir: Path, reference: ColumnResult, tmp_path: Path) -> None:
    """The broken column does pause, with the right pending call: only the effects observed at the pause differ."""
    pauses = _cell("broken_writes_before_pause", scenarios_dir, reference, tmp_path, "high_risk_in_parallel_batch", "pre_approval_state")
    honest, broken = pauses["handwritten"]["pauses"][0], pauses["framework"]["pauses"][0]
    assert honest["pending"] == broken["pending"] and honest["non_read_only_effects"] == {}
    assert broken["non_read_only_effects"] == {"c2": 1}


@pytest.mark.slow  # column processes through the runner
def test_tampering_with_the_ledger_leaves_the_counts_as_they_were(scenarios_dir: Path, reference: ColumnResult, tmp_path: Path) -> None:
    """The column re-ran the duplicate, then tried to delete and edit ledger entries: the runner still counts 2 effects."""
    effects = _cell("broken_tampers_with_ledger", scenarios_dir, reference, tmp_path, "duplicate_call_id", "side_effects")
    assert effects["handwritten"]["c1"]["effects"] == 1
    assert effects["framework"]["c1"] == {"tool_entries": 2, "executor_entries": 2, "effects": 2}


@pytest.mark.slow  # column processes through the runner
def test_the_honest_engine_through_the_same_path_is_equal_everywhere(scenarios_dir: Path, reference: ColumnResult, tmp_path: Path) -> None:
    """The control: the same runner and comparator on the unbroken engine find no difference."""
    column = Column("handwritten_again", "adapters.handwritten.column:HandwrittenColumn", "project", "the reference, compared with itself")
    result = run_column(column, ["contract"], scenarios_dir, tmp_path, scenario_count=len(CASES))
    document = column_document(result, reference, _scenarios(scenarios_dir))
    summary = document["modes"]["contract"]["summary"]
    assert (summary["not_equal_cells"], summary["errors"], summary["equal_cells"]) == (0, 0, summary["applicable_cells"])


def test_cells() -> None:
    assert cell("x", "n/a", "n/a") == {"handwritten": "n/a", "framework": "n/a", "equal": None}
    assert cell("x", {"c1": 1}, {"c1": 1}) == {"handwritten": {"c1": 1}, "framework": {"c1": 1}, "equal": True}
    assert cell("side_effects", {"c1": {"effects": 1}}, {"c1": {"effects": 2}}) == {
        "handwritten": {"c1": {"effects": 1}},
        "framework": {"c1": {"effects": 2}},
        "equal": False,
        "reason": "side_effects.c1.effects: hand-written 1, framework 2. no rule explains this difference at side_effects.c1.effects",
        "rules": [],
        "unexplained": True,
    }
    assert describe_difference([1, 2], [1, 3]) == "[1]: hand-written 2, framework 3"


def test_an_optional_cell_the_engine_has_none_of_is_not_compared_but_one_the_framework_lacks_differs() -> None:
    """The in-process engine has no MCP client: the ``mcp`` cell of ``handwritten_mcp`` has nothing to be compared with;
    a framework that lacks one where the engine's run has it is a difference like any other."""
    measured = {"withdrawn": [], "sent_again": {}}
    assert cell("mcp", "n/a", measured) == {"handwritten": "n/a", "framework": measured, "equal": None}
    assert cell("mcp", measured, "n/a")["equal"] is False
    assert cell("side_effects", "n/a", {"c1": 1})["equal"] is False  # only the optional observables


def test_an_errored_column_is_never_equal() -> None:
    ok = {"status": "ok", "error": None, "observables": dict.fromkeys(OBSERVABLES, "n/a")}
    errored = {**ok, "status": "error", "error": "TypeError: boom"}
    cells = compare_scenario(ok, errored)
    assert {c["equal"] for c in cells.values()} == {False}
    assert {c["reason"] for c in cells.values()} == {"the column errored: TypeError: boom"}
