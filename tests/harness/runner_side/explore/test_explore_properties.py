"""The contract's properties hold on the engine's real runs of committed scenarios, in process and with its model
over HTTP (the committed ``wire_*`` scenarios and generated ones with faults of the model's endpoint), and each one
fails when the measured facts it reads are changed the way a broken engine would change them (an effect repeated, one
not approved or with other arguments, an always-denied tool entered, a rejected call run, a step that raised, a fourth
attempt, a retry the contract forbids or one it asks for left out, a call given up without ``model_unavailable``)."""

from __future__ import annotations

import copy
import shutil
from typing import Any

import pytest

from harness.columns import ROOT, known_columns
from harness.ledger import EFFECT, EXECUTOR_ENTRY, TOOL_ENTRY
from harness.records import run_key
from harness.runner_side.explore.generate import generate, write_scenario
from harness.runner_side.explore.properties import check_run
from harness.runner_side.run.runner import run_column
from harness.runner_side.run.servers.wire import WireServer
from harness.scenarios import WIRE_POINTS, Scenario, load_scenarios

pytestmark = pytest.mark.slow  # the engine's column process through the runner

NAMES = ("high_risk_approved", "high_risk_rejected", "uncertain_after_timeout", "approval_misuse_other_args", "always_deny")
WIRE_NAMES = ("wire_http_500_once", "wire_http_500_always", "wire_client_error", "wire_retry_after_too_long", "wire_unavailable_then_resume")
GENERATED = 6
"""Generated examples of seed 1 with faults of the model's endpoint (none slow: a slow answer costs 3 s of every run)."""
Run = tuple[Scenario, dict[str, Any], list[dict[str, Any]]]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    root = tmp_path_factory.mktemp("properties")
    (root / "scenarios").mkdir()
    for name in NAMES:
        shutil.copy(ROOT / "scenarios" / f"{name}.json", root / "scenarios")
    result = run_column(known_columns()["handwritten"], ["contract"], root / "scenarios", root / "columns", scenario_count=len(NAMES))
    assert result.status == "measured", result.reason
    assert result.ledger is not None  # the runner's own count, never its journal file
    return {s.id: (s, result.modes["contract"][s.id], result.ledger.entries(run_key("contract", s.id))) for s in load_scenarios(root / "scenarios")}


@pytest.fixture(scope="module")
def wire_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """The engine's wire runs of the committed wire scenarios and of generated examples with the endpoint's faults."""
    root = tmp_path_factory.mktemp("wire-properties")
    (root / "scenarios").mkdir()
    for name in WIRE_NAMES:
        shutil.copy(ROOT / "scenarios" / f"{name}.json", root / "scenarios")
    wired = (d for d in (generate(1, i) for i in range(400)) if any(f["point"] in WIRE_POINTS for f in d["faults"]))
    for document in [d for d in wired if all(f["point"] != "model.http_slow" for f in d["faults"])][:GENERATED]:
        write_scenario(root / "scenarios", document)
    scenarios = load_scenarios(root / "scenarios")
    with WireServer(scenarios) as wire:
        result = run_column(known_columns()["handwritten"], ["wire"], root / "scenarios", root / "columns", scenario_count=len(scenarios), wire=wire)
    assert result.status == "measured" and not wire.errors, result.reason
    assert result.ledger is not None
    return {s.id: (s, result.modes["wire"][s.id], result.ledger.entries(run_key("wire", s.id))) for s in scenarios}


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
    driver_could_not["steps"][1] |= {"status": "error", "error": "driver: misuse 'reused' needs a token handed to the column earlier that it did not refuse"}
    driver_could_not["observables"]["status"] = "error"
    assert "named_status" not in _failed(run, record=driver_could_not)


def test_every_property_holds_on_the_engines_wire_runs(wire_runs: dict[str, Run]) -> None:
    assert len(wire_runs) == len(WIRE_NAMES) + GENERATED
    for name, run in wire_runs.items():
        assert check_run(*run) == [], name
    statuses = {run[1]["observables"]["status"] for run in wire_runs.values()}
    assert "model_unavailable" in statuses  # a named status the run may end in, resumable


def _attempts(run: Run, call: int, answers: list[Any], retry_after: float | None = None) -> dict[str, Any]:
    """``run``'s record with the attempts of its ``call``-th logical model call changed to meet ``answers``, as the
    scripted server would have recorded them (the observable's call and each request)."""
    record = copy.deepcopy(run[1])
    wire = record["observables"]["wire"]
    target = wire["calls"][call]
    where = (target["step"], target["turn"])
    before = sum(len(c["answers"]) for c in wire["calls"][:call] if (c["step"], c["turn"]) == where)
    mine = [i for i, r in enumerate(record["wire_requests"]) if (r["step"], r["turn"]) == where][before : before + len(target["answers"])]
    template = record["wire_requests"][mine[0]]
    requests = [{**template, "answer": a if not str(a).isdigit() else int(a), "retry_after": retry_after} for a in answers]
    record["wire_requests"][mine[0] : mine[-1] + 1] = requests
    target["answers"] = [str(a) for a in answers]
    return record


def _failed_wire(run: Run, record: dict[str, Any]) -> set[str]:
    return {f.property for f in check_run(run[0], record, run[2])}


def test_a_fourth_attempt_or_attempts_under_other_keys_fail(wire_runs: dict[str, Run]) -> None:
    run = wire_runs["wire_http_500_always"]  # turn 1 of step 0: 500, 500, 500, then model_unavailable
    assert _failed_wire(run, _attempts(run, 1, [500, 500, 500, 500])) == {"bounded_model_attempts"}
    varied = copy.deepcopy(run[1])
    varied["observables"]["wire"]["calls"][1]["keys"] = "varied"
    assert _failed_wire(run, varied) == {"bounded_model_attempts"}


def test_a_retry_the_contract_forbids_or_asks_for_fails(wire_runs: dict[str, Run]) -> None:
    once = wire_runs["wire_http_500_once"]  # turn 0: 500 then 200
    assert _failed_wire(once, _attempts(once, 0, [400, 200])) == {"bounded_model_attempts"}  # asked again after a 400
    assert _failed_wire(once, _attempts(once, 0, [503, 200], retry_after=30)) == {"bounded_model_attempts"}  # after a long Retry-After
    assert _failed_wire(once, _attempts(once, 0, [429, 200], retry_after=2)) == set()  # a 429 with a Retry-After it may wait
    given_up = wire_runs["wire_http_500_always"]
    assert "bounded_model_attempts" in _failed_wire(given_up, _attempts(given_up, 1, ["reset"]))  # gave up on the first reset
    assert _failed_wire(given_up, _attempts(given_up, 1, [404])) == set()  # a 404 ends the call at once


def test_a_call_given_up_without_model_unavailable_fails(wire_runs: dict[str, Run]) -> None:
    run = wire_runs["wire_http_500_always"]
    other = copy.deepcopy(run[1])
    other["steps"][0]["status"] = "completed"
    assert _failed_wire(run, other) == {"model_unavailable_named"}
    crashed = copy.deepcopy(run[1])  # a kill fired as the failed answer came in: the process died, nothing to name
    crashed["steps"][0]["status"] = "crashed"
    assert _failed_wire(run, crashed) == set()
