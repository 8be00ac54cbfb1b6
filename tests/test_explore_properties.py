"""The contract's properties hold on the engine's real runs of committed scenarios, and each one fails when the
measured facts it reads are changed the way a broken engine would change them (an effect repeated, one not approved
or with other arguments, an always-denied tool entered, a rejected call run, a step that raised)."""

from __future__ import annotations

import copy
import shutil
from typing import Any

import pytest

from harness.columns import ROOT, known_columns
from harness.ledger import EFFECT, EXECUTOR_ENTRY, TOOL_ENTRY, LedgerStore
from harness.records import run_key
from harness.runner_side.explore.properties import check_run
from harness.runner_side.runner import run_column
from harness.scenarios import Scenario, load_scenarios

pytestmark = pytest.mark.slow  # the engine's column process through the runner

NAMES = ("high_risk_approved", "high_risk_rejected", "uncertain_after_timeout", "approval_misuse_other_args", "always_deny")
Run = tuple[Scenario, dict[str, Any], list[dict[str, Any]]]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    root = tmp_path_factory.mktemp("properties")
    (root / "scenarios").mkdir()
    for name in NAMES:
        shutil.copy(ROOT / "scenarios" / f"{name}.json", root / "scenarios")
    result = run_column(known_columns()["handwritten"], ["contract"], root / "scenarios", root / "columns", scenario_count=len(NAMES))
    assert result.status == "measured", result.reason
    store = LedgerStore(root / "columns" / "handwritten.ledger.sqlite")
    try:
        return {s.id: (s, result.modes["contract"][s.id], store.entries(run_key("contract", s.id))) for s in load_scenarios(root / "scenarios")}
    finally:
        store.close()


def _failed(run: Run, record: dict[str, Any] | None = None, entries: list[dict[str, Any]] | None = None) -> set[str]:
    scenario, measured, ledger = run
    return {f.property for f in check_run(scenario, record or measured, ledger if entries is None else entries)}


def test_every_property_holds_on_the_engines_runs(runs: dict[str, Run]) -> None:
    for name, run in runs.items():
        assert check_run(*run) == [], name


def test_a_second_effect_under_one_key_fails_unless_a_reconcile_said_the_first_never_happened(runs: dict[str, Run]) -> None:
    scenario, record, entries = runs["high_risk_approved"]
    effect = next(e for e in entries if e["kind"] == EFFECT)
    assert _failed(runs["high_risk_approved"], entries=[*entries, effect]) == {"one_effect_per_key"}
    timed_out = runs["uncertain_after_timeout"]
    doubled = [*timed_out[2], next(e for e in timed_out[2] if e["kind"] == EFFECT)]
    assert "one_effect_per_key" in _failed(timed_out, entries=doubled)  # its reconcile said "confirmed", not "not_executed"
    said_not_executed = copy.deepcopy(timed_out[0].driver[2]) | {"outcome": "not_executed"}
    scenario_b = Scenario(**{**timed_out[0].__dict__, "driver": (*timed_out[0].driver[:2], said_not_executed)})
    assert "one_effect_per_key" not in {f.property for f in check_run(scenario_b, timed_out[1], doubled)}


def test_a_high_risk_effect_needs_an_accepted_approval_of_that_call_with_those_arguments(runs: dict[str, Run]) -> None:
    run = runs["high_risk_approved"]
    effect = next(e for e in run[2] if e["kind"] == EFFECT)
    other_args = [e if e is not effect else {**e, "payload": {**e["payload"], "amount_cents": 999}} for e in run[2]]
    assert _failed(run, entries=other_args) == {"approved_high_risk_only"}
    refused = copy.deepcopy(run[1])
    refused["steps"][1] |= {"status": "refused", "refusal": "other_args"}
    assert "approved_high_risk_only" in _failed(run, record=refused)
    rejected = runs["high_risk_rejected"]  # an effect where the only decision was a rejection
    assert "approved_high_risk_only" in _failed(rejected, entries=[{"step": 1, "call_id": "c1", "kind": EFFECT, "tool": "send_email", "payload": {}}])


def test_a_misused_token_taken_fails(runs: dict[str, Run]) -> None:
    run = runs["approval_misuse_other_args"]
    misuse = next(i for i, s in enumerate(run[0].driver) if s["action"] == "misuse_token")
    taken = copy.deepcopy(run[1])
    taken["steps"][misuse] |= {"status": "completed", "refusal": None}
    assert "approved_high_risk_only" in _failed(run, record=taken)


def test_an_always_denied_tool_entered_fails(runs: dict[str, Run]) -> None:
    run = runs["always_deny"]
    call_id = next(c["id"] for t in run[0].model_script for c in t.get("tool_calls", ()) if c["name"] == "drop_database")
    entered = [*run[2], {"step": 0, "call_id": call_id, "kind": TOOL_ENTRY, "tool": "drop_database", "payload": {}}]
    assert _failed(run, entries=entered) == {"always_deny_never_entered"}


def test_a_rejected_call_that_runs_fails(runs: dict[str, Run]) -> None:
    run = runs["high_risk_rejected"]
    ran = [*run[2], {"step": 1, "call_id": "c1", "kind": EXECUTOR_ENTRY, "tool": "send_email", "payload": {}}]
    assert _failed(run, entries=ran) == {"rejected_never_run"}


def test_a_step_that_raised_or_an_unnamed_status_fails(runs: dict[str, Run]) -> None:
    run = runs["high_risk_approved"]
    raised = copy.deepcopy(run[1])
    raised["steps"][1] |= {"status": "error", "error": "EngineError: boom"}
    raised["observables"]["status"] = "error"
    assert _failed(run, record=raised) == {"named_status"}
    driver_could_not = copy.deepcopy(run[1])  # the driver's own impossibility (a reused token with none accepted) is not the column's
    driver_could_not["steps"][1] |= {"status": "error", "error": "driver: misuse 'reused' needs a token the column accepted earlier"}
    driver_could_not["observables"]["status"] = "error"
    assert "named_status" not in _failed(run, record=driver_could_not)
