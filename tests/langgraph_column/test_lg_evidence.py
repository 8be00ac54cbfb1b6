"""The LangGraph column end to end: the committed evidence is reproduced from the real, locked environment."""

from __future__ import annotations

import json

from harness.columns import ROOT
from harness.scenarios import load_scenarios

EVIDENCE = ROOT / "evidence" / "langgraph.json"
# Defaults: the tool node's default error handling re-raises any tool exception that is not an
# argument-validation error, so an injected failure or timeout ends the run: the step's status is
# "error", a measured outcome (the adapter traces it as run_failed), not a failure to measure.
FAILED_RUNS = {
    "retry_before_effect": "InjectedToolError: injected failure at tool.raise_before_effect",
    "uncertain_after_timeout": "TimeoutError: injected timeout at tool.timeout_after_effect",
}


def test_the_scenarios_that_race_are_exactly_the_defaults_kills() -> None:
    document = json.loads(EVIDENCE.read_text(encoding="utf-8"))
    kills = {s.id for s in load_scenarios(ROOT / "scenarios") if any(f.action == "kill" for f in s.faults)}
    racing = {mode: {sid for sid, s in body["scenarios"].items() if s["races"]} for mode, body in document["modes"].items()}
    assert racing == {"defaults": kills, "contract": set()}


def test_only_the_explained_runs_fail() -> None:
    document = json.loads(EVIDENCE.read_text(encoding="utf-8"))
    for mode, body in document["modes"].items():
        failed = {sid: [e["error"] for e in s["trace"] if e["kind"] == "run_failed"] for sid, s in body["scenarios"].items()}
        assert {sid: f for sid, f in failed.items() if f} == ({sid: [why] for sid, why in FAILED_RUNS.items()} if mode == "defaults" else {})


def test_contract_cells_are_equal_or_say_why() -> None:
    contract = json.loads(EVIDENCE.read_text(encoding="utf-8"))["modes"]["contract"]
    for sid, scenario in contract["scenarios"].items():
        for name, cell in scenario["columns"].items():
            if cell["equal"] is False:
                assert "contract glue" in cell["reason"], (sid, name, cell["reason"])
