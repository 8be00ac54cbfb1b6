"""Acceptance: every scenario through the local_state_graph column gives exactly the reference column's observables."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from adapters.local_state_graph.checkpointer import MemorySaver
from adapters.local_state_graph.column import LocalStateGraphColumn
from adapters.local_state_graph.contract import contract_graph
from harness.column_side.driver import run_scenario
from harness.column_side.scripted_model import summarize_log
from harness.records import ScenarioRun
from harness.runner_side.observe.observables import observe
from harness.scenarios import Scenario, load_scenarios

adapter = LocalStateGraphColumn()

SCENARIOS = {s.id: s for s in load_scenarios() if not s.uses_boundary and not s.uses_wire}  # no tool boundary, its model in process


def play(scenario: Scenario, scratch: Path) -> tuple[ScenarioRun, dict[str, Any]]:
    run = run_scenario(scenario, functools.partial(adapter.perform, mode="contract"), scratch)
    model = summarize_log(scratch / "model_log.jsonl", len(scenario.model_script))
    return run, observe(run, adapter.facts(run, "contract"), model)


@pytest.mark.parametrize("scenario_id", sorted(SCENARIOS))
def test_observables_equal_the_reference_column(handwritten_checks: dict[str, Any], scenario_id: str, tmp_path: Path) -> None:
    run, observables = play(SCENARIOS[scenario_id], tmp_path)
    assert [s.error for s in run.steps if s.error] == []
    assert observables == handwritten_checks[scenario_id].actual


def test_the_column_interface() -> None:
    assert (adapter.name, adapter.modes) == ("local_state_graph", ("contract",))
    with pytest.raises(ValueError, match="runs in modes"):
        adapter.facts(ScenarioRun(SCENARIOS["always_deny"], Path("."), []), "defaults")


@pytest.mark.slow  # scenarios in worker processes
def test_detail_is_deterministic_and_counts_every_super_step(tmp_path: Path) -> None:
    scenario = SCENARIOS["kill_before_effect"]
    details = [adapter.detail(play(scenario, tmp_path / name)[0], "contract") for name in ("first", "second")]
    assert details[0] == details[1]
    graph = contract_graph().compile(MemorySaver())
    assert details[0] == {"graph": {**graph.describe(), "super_steps": 13, "mermaid": graph.mermaid()}}
