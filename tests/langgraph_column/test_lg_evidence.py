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


def test_the_kill_scenarios_of_defaults_are_recorded_once_per_forced_ordering() -> None:
    """A kill inside the model or a tool races the asynchronous checkpoint write only in defaults: each such
    scenario is two deterministic sub-cases, one per schedule, and nothing else is split."""
    document = json.loads(EVIDENCE.read_text(encoding="utf-8"))
    reachable = ("model.kill_before_turn", "tool.kill_before_effect", "tool.kill_after_effect")
    kills = {s.id for s in load_scenarios(ROOT / "scenarios") if any(f.point in reachable for f in s.faults)}
    split = {mode: {key for key in body["scenarios"] if "@" in key} for mode, body in document["modes"].items()}
    assert split == {"defaults": {f"{sid}@{schedule}" for sid in kills for schedule in ("write_held", "write_landed")}, "contract": set()}
    assert not kills & set(document["modes"]["defaults"]["scenarios"])


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
