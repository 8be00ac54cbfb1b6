"""What every third-party column owes, checked the same way for each on its committed evidence: every scenario is
measured in both modes, its glue is counted (marked regions balanced) and the versions it ran are its pins.
That the environment built from the lock reproduces the evidence is ``run_framework_comparison.py --check``'s to show,
which CI runs as its own step (once: a test here would run every column a second time). Column-specific findings are
tested in tests/<column>_column/."""

from __future__ import annotations

import json

import pytest

from harness.columns import ROOT, known_columns
from harness.modes import DEFAULT_MODES, MODES
from harness.runner_side.run.environments import direct_pins
from harness.scenarios import load_scenarios

THIRD_PARTY = sorted(name for name, column in known_columns().items() if column.environment == "isolated")


def _evidence(name: str) -> dict:
    return json.loads((ROOT / "evidence" / f"{name}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", THIRD_PARTY)
def test_every_scenario_is_measured_in_every_mode(name: str) -> None:
    evidence = _evidence(name)
    scenarios = load_scenarios()
    at_boundary = {s.id for s in scenarios if s.uses_boundary}  # direct calls need a tool boundary outside the loop
    on_the_wire = {s.id for s in scenarios if s.uses_wire}  # a fault of the model's endpoint: the wire mode only
    at_the_server = {s.id for s in scenarios if s.uses_mcp}  # a fault of an MCP server: the mcp mode only
    assert evidence["status"] == "measured"
    assert set(DEFAULT_MODES) <= set(evidence["modes"]) <= set(MODES)  # mcp: measured apart (--mode mcp)
    for mode, body in evidence["modes"].items():
        left_out = at_boundary | (on_the_wire if mode != "wire" else set()) | (at_the_server if mode != "mcp" else set())
        assert {s["scenario"] for s in body["scenarios"].values()} == {s.id for s in scenarios} - left_out, mode
        assert set(body.get("not_applicable", {})) == left_out, mode
        assert {sid: s["error"] for sid, s in body["scenarios"].items() if s["status"] == "error"} == {}, mode


@pytest.mark.parametrize("name", THIRD_PARTY)
def test_the_glue_is_counted_and_the_versions_are_the_pins(name: str) -> None:
    evidence = _evidence(name)
    assert "glue.py" in evidence["glue_lines"]["files"] and evidence["glue_lines"]["total"] > 0
    pins = direct_pins(known_columns()[name].environment_dir / "requirements.in")  # an extra pin's own requirements.in
    assert {package: evidence["versions"].get(package) for package in pins} == pins


@pytest.mark.parametrize("name", sorted({column.adapter for column in known_columns().values()}))
def test_glue_markers_are_balanced(name: str) -> None:
    folder = ROOT / "adapters" / name
    for path in folder.glob("*.py") if folder.is_dir() else ():
        lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
        markers = [line for line in lines if line in ("# contract glue: start", "# contract glue: end")]
        assert markers == ["# contract glue: start", "# contract glue: end"] * (len(markers) // 2), path.name
