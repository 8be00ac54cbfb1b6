"""One scenario's failure is that scenario's error, never the column's: a column whose tool factory lacks the tool one
scenario needs (in the step's worker, in the column process reading its detail, and building the agent its constants
are read from) still measures its other scenarios, and the one scenario's error names the exception, loudly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest

import harness.columns as columns
from harness.columns import ROOT
from harness.runner_side.run.runner import run_column

pytestmark = pytest.mark.slow  # column processes through the runner

BROKEN = "tests.broken_adapters.fails_for_one_scenario:Column"


def _scenarios(tmp_path: Path) -> Path:
    directory = tmp_path / "scenarios"
    directory.mkdir()
    # always_deny (needs drop_database) is the first the column plays; tool_output_as_instruction needs it too
    for name in ("always_deny", "basic_react_loop", "tool_output_as_instruction"):
        shutil.copy(ROOT / "scenarios" / f"{name}.json", directory)
    return directory


def test_a_scenario_whose_agent_cannot_be_built_is_its_own_error_and_the_others_are_measured(tmp_path: Path) -> None:
    scenarios = _scenarios(tmp_path)
    broken = run_column(columns.Column("fails_for_one_scenario", BROKEN, "project", ""), ["contract"], scenarios, tmp_path / "b", scenario_count=3)
    reference = run_column(columns.known_columns()["handwritten"], ["contract"], scenarios, tmp_path / "r", scenario_count=3)
    assert broken.status == "measured", broken.reason

    failed, measured = broken.modes["contract"]["always_deny"], broken.modes["contract"]["basic_react_loop"]
    assert (measured["status"], measured["error"]) == ("ok", None)
    assert measured["observables"] == reference.modes["contract"]["basic_react_loop"]["observables"]
    assert measured["detail"] == {"tools": ["get_weather", "search_kb"]}
    assert failed["status"] == "error"
    assert failed["error"] == "building the agent for the framework's constants raised KeyError: 'drop_database'"
    # the constant is read from the agent of the first scenario whose agent builds
    assert broken.constants == {"step_limit": {"ref": "tests.broken_adapters.fails_for_one_scenario:tool_factory", "value": 2}}
    # the worker's KeyError is on the step itself; the column process's (reading its detail) on the record
    assert failed["steps"][0]["error"] == "KeyError: 'drop_database'"
    later = broken.modes["contract"]["tool_output_as_instruction"]
    assert (later["status"], later["error"]) == ("error", "reading what the column did raised KeyError: 'drop_database'")



def test_the_scenarios_error_is_in_the_evidence_and_printed_loudly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], comparison_cli: ModuleType
) -> None:
    broken = columns.Column("fails_for_one_scenario", BROKEN, "project", "a tool factory lacking drop_database", lock_dir=tmp_path / "no_mapping")
    declared = columns.known_columns()
    monkeypatch.setattr(columns, "known_columns", lambda: {**declared, broken.name: broken})
    scenarios = _scenarios(tmp_path)

    assert comparison_cli.main(["--framework", broken.name, "--mode", "contract", "--scenarios", str(scenarios), "--output", str(tmp_path / "out")]) == 1
    err = " ".join(capsys.readouterr().err.split())  # the closing lines wrap at 100 characters
    why = "building the agent for the framework's constants raised KeyError: 'drop_database'"
    assert f"!!! fails_for_one_scenario/contract/always_deny could not be measured: {why}" in err
    assert "2 scenario runs could not be measured" in err and "NOT MEASURED" not in err
    evidence = json.loads((tmp_path / "out" / f"{broken.name}.json").read_text(encoding="utf-8"))
    body = evidence["modes"]["contract"]["scenarios"]
    assert (evidence["status"], body["basic_react_loop"]["status"], body["always_deny"]["status"]) == ("measured", "ok", "error")
    assert all(cell["equal"] for cell in body["basic_react_loop"]["columns"].values() if cell["equal"] is not None)
    assert "KeyError: 'drop_database'" in body["always_deny"]["error"]
