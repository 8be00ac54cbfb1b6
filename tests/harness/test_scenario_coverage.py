"""The scenario set covers what the contract asks for."""

from __future__ import annotations

import json

from harness.columns import ROOT
from harness.scenarios import load_scenarios

FAULT_INJECTIONS = {
    "uncertain_after_timeout",
    "high_risk_before_approval",
    "validation_before_execution",
    "unbound_approval_token",
    "side_effect_before_checkpoint",
    "tool_output_as_instruction",
}
EVERYDAY = {
    "basic_react",
    "tool_error_as_message",
    "invalid_args_corrected",
    "parallel_tool_calls",
    "step_bound",
    "duplicate_event",
    "crash_resume",
}


def test_at_least_fourteen_scenarios_cover_the_fault_injections_and_everyday_cases() -> None:
    scenarios = load_scenarios()
    covered = {c for s in scenarios for c in s.covers}
    assert len(scenarios) >= 14
    assert FAULT_INJECTIONS - covered == set()
    assert EVERYDAY - covered == set()


def test_every_fault_point_is_used_by_some_scenario() -> None:
    """A ``state.kill_after_save`` numbers each column's own saves, a different moment in each column, so no committed
    scenario (played side by side) names one: the crash sweep kills after every save of every column instead."""
    from harness.scenarios import FAULT_POINTS

    used = {f.point for s in load_scenarios() for f in s.faults}
    rows = json.loads((ROOT / "evidence" / "sweep.json").read_text(encoding="utf-8"))["columns"]
    swept = {k.split()[0] for modes in rows.values() for by_id in modes.values() for row in by_id.values() for k in row["kill_points"]}
    assert used | (swept & {"state.kill_after_save"}) == set(FAULT_POINTS)
