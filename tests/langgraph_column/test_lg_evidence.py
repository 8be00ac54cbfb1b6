"""The LangGraph column end to end: the committed evidence is reproduced from the real, locked environment."""

from __future__ import annotations

import json
import subprocess
import sys

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


def test_check_reproduces_the_committed_evidence() -> None:
    """Scenarios with a kill race LangGraph's asynchronous checkpoint write: they run twice and
    --check tolerates their drift (declared racing); everything else must be reproduced exactly."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "run_framework_comparison.py"), "--framework", "langgraph", "--check"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_scenarios_that_race_are_exactly_the_defaults_kills() -> None:
    document = json.loads(EVIDENCE.read_text(encoding="utf-8"))
    kills = {s.id for s in load_scenarios(ROOT / "scenarios") if any(f.action == "kill" for f in s.faults)}
    racing = {mode: {sid for sid, s in body["scenarios"].items() if s["races"]} for mode, body in document["modes"].items()}
    assert racing == {"defaults": kills, "contract": set()}


def test_every_scenario_is_measured_in_both_modes_and_only_the_explained_runs_fail() -> None:
    document = json.loads(EVIDENCE.read_text(encoding="utf-8"))
    ids = {s.id for s in load_scenarios(ROOT / "scenarios")}
    assert document["status"] == "measured"
    assert set(document["modes"]) == {"defaults", "contract"}
    for mode, body in document["modes"].items():
        assert set(body["scenarios"]) == ids, mode
    contract = document["modes"]["contract"]
    assert contract["summary"]["errors"] == 0
    defaults = document["modes"]["defaults"]["scenarios"]
    assert {sid: s["error"] for sid, s in defaults.items() if s["status"] == "error"} == {}
    failed = {sid: [e["error"] for e in s["trace"] if e["kind"] == "run_failed"] for sid, s in defaults.items()}
    assert {sid: f for sid, f in failed.items() if f} == {sid: [why] for sid, why in FAILED_RUNS.items()}


def test_contract_cells_are_equal_or_say_why() -> None:
    contract = json.loads(EVIDENCE.read_text(encoding="utf-8"))["modes"]["contract"]
    for sid, scenario in contract["scenarios"].items():
        for name, cell in scenario["columns"].items():
            if cell["equal"] is False:
                assert "contract glue" in cell["reason"], (sid, name, cell["reason"])


def test_no_network_was_attempted_and_the_versions_are_the_pins() -> None:
    document = json.loads(EVIDENCE.read_text(encoding="utf-8"))
    assert document["network_refused"] == []
    assert {k: document["versions"][k] for k in ("langgraph", "langgraph-checkpoint", "langgraph-checkpoint-sqlite", "langgraph-prebuilt")} == {
        "langgraph": "1.2.24",
        "langgraph-checkpoint": "4.3.2",
        "langgraph-checkpoint-sqlite": "3.1.2",
        "langgraph-prebuilt": "1.1.3",
    }
    assert document["glue_lines"]["total"] > 0
