"""The LangChain column end to end: its environment built from the lock, every scenario in both modes,
and the committed evidence (``evidence/langchain.json``) regenerated and checked."""

from __future__ import annotations

import json
import subprocess
import sys

from harness.columns import ROOT
from harness.scenarios import load_scenarios

EVIDENCE = ROOT / "evidence" / "langchain.json"
# Defaults: the tool node's default error handling re-raises any tool exception that is not an
# argument-validation error, so an injected failure or timeout ends the run: the step's status is
# "error", a measured outcome (the adapter traces it as run_failed), not a failure to measure.
FAILED_RUNS = {
    "retry_before_effect": "InjectedToolError: injected failure at tool.raise_before_effect",
    "uncertain_after_timeout": "TimeoutError: injected timeout at tool.timeout_after_effect",
}


def _evidence() -> dict:
    return json.loads(EVIDENCE.read_text(encoding="utf-8"))


def test_check_regenerates_the_committed_evidence() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/run_framework_comparison.py", "--framework", "langchain", "--check"],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_every_scenario_is_measured_in_both_modes_and_only_the_explained_runs_fail() -> None:
    evidence = _evidence()
    assert evidence["status"] == "measured"
    ids = {s.id for s in load_scenarios()}
    for mode in ("defaults", "contract"):
        scenarios = evidence["modes"][mode]["scenarios"]
        assert set(scenarios) == ids
        errors = {sid: s["error"] for sid, s in scenarios.items() if s["status"] == "error"}
        assert errors == {}
        failed = {sid: [e["error"] for e in s["trace"] if e["kind"] == "run_failed"] for sid, s in scenarios.items()}
        assert {sid: f for sid, f in failed.items() if f} == ({sid: [why] for sid, why in FAILED_RUNS.items()} if mode == "defaults" else {})


def test_contract_mode_differs_only_where_the_deduplication_is_glue() -> None:
    scenarios = _evidence()["modes"]["contract"]["scenarios"]
    unequal = {(sid, name) for sid, s in scenarios.items() for name, c in s["columns"].items() if c["equal"] is False}
    assert unequal == {(sid, "idempotent_replay") for sid in ("duplicate_call_id", "duplicate_event", "resume_same_state_twice")}
    for sid, name in unequal:
        assert "contract glue" in scenarios[sid]["columns"][name]["reason"]


def test_no_network_was_attempted_and_the_glue_is_counted() -> None:
    evidence = _evidence()
    assert evidence["network_refused"] == []
    assert evidence["glue_lines"]["total"] > 0 and "glue.py" in evidence["glue_lines"]["files"]
    assert {"langchain", "langchain-core", "langgraph-checkpoint-sqlite"} <= set(evidence["versions"])
