"""The committed evidence of the Pydantic AI column (``evidence/pydantic_ai.json``): contract mode differs only where
Pydantic AI cannot express the contract, and the defaults findings MAPPING.md describes are what was measured.
(``tests/harness/runner_side/run/test_third_party_columns.py`` checks, for every column, that the evidence reproduces from the lock.)"""

from __future__ import annotations

import json
from typing import Any

from harness.columns import ROOT

EVIDENCE = ROOT / "evidence" / "pydantic_ai.json"
GLUE_DEDUP = {(sid, "idempotent_replay") for sid in (
    "duplicate_call_id", "duplicate_event", "redelivery_while_pending", "resume_same_state_twice",
    "kill_in_batch_after_approved",  # the resume re-runs the killed turn, whose t1 and n1 meet their records; then the redelivered event
)}
HELD_FOR_TURN = {("approval_misuse_other_call", "pre_approval_state")}  # a rejection held until the turn's other call is decided
# Pydantic AI saves nothing inside a node (the contract glue writes the history at node boundaries: MAPPING.md, "What is
# saved when"): after a kill inside a turn's tool the resume runs the turn from the model response that named its calls,
# from the first call, where the engine continues at the killed call's reconcile. Cell -> the rule that says so.
KILLED_TURN_RUN_AGAIN = {
    ("kill_in_batch_after_approved", "checkpoint_after_interrupt"): "resumed_differently",  # found t1 (replayed) first, then n1's reconcile
    ("misused_approval_kill_resume", "checkpoint_after_interrupt"): "resumed_differently",  # found t1 (replayed) first, then m1's reconcile
    ("two_transfers_flaky_note_kill", "checkpoint_after_interrupt"): "resumed_differently",  # found b1 first, then t2's reconcile
    ("two_transfers_flaky_note_kill", "side_effects"): "executed_again",  # so the read b1 runs again (the writes replay their records)
}
# the redelivered event is the glue's to refuse, and t1's first result is Pydantic AI's rejection in its own words
# ("not approved", the denial's message) where the engine's is its JSON error: the same statuses (results_differ)
REJECTION_WORDED = {("rejected_then_restored_approved", "idempotent_replay"): ("deduplicated_by_glue", "results_differ")}


def _mode(mode: str) -> dict[str, Any]:
    return json.loads(EVIDENCE.read_text(encoding="utf-8"))["modes"][mode]["scenarios"]


def _framework(mode: str, scenario: str, cell: str) -> Any:
    return _mode(mode)[scenario]["columns"][cell]["framework"]


def test_the_mechanisms_are_pydantic_ais_own_and_nothing_races() -> None:
    evidence = json.loads(EVIDENCE.read_text(encoding="utf-8"))
    assert set(evidence["mechanisms"]) == {"loop", "tool_dispatch", "message_assembly", "approval", "persistence"}
    assert all(m["ref"].startswith("pydantic_ai.") for m in evidence["mechanisms"].values())
    assert not any(s["schedule"] for body in evidence["modes"].values() for s in body["scenarios"].values())


def test_contract_mode_differs_only_where_pydantic_ai_cannot_express_the_contract() -> None:
    scenarios = _mode("contract")
    unequal = {(sid, name) for sid, s in scenarios.items() for name, c in s["columns"].items() if c["equal"] is False}
    assert unequal == GLUE_DEDUP | HELD_FOR_TURN | set(KILLED_TURN_RUN_AGAIN) | set(REJECTION_WORDED)
    for sid, name in HELD_FOR_TURN:
        assert scenarios[sid]["columns"][name]["rules"] == ["held_for_turn"]
    for (sid, name), rule in KILLED_TURN_RUN_AGAIN.items():
        assert rule in scenarios[sid]["columns"][name]["rules"], (sid, name)
    for (sid, name), rules in REJECTION_WORDED.items():
        cell = scenarios[sid]["columns"][name]
        assert set(rules) <= set(cell["rules"]) and "the same statuses, each run's in its own words" in cell["reason"], (sid, name)
        engine = cell["handwritten"]["t1"]
        assert cell["framework"]["t1"] == {**engine, "provided_by": "glue", "results": ["not approved", *engine["results"][1:]]}
    for sid, name in GLUE_DEDUP:  # the same results and effects as the engine's; only the deduplication is the glue's
        cell = scenarios[sid]["columns"][name]
        assert {c: {**v, "provided_by": "glue"} for c, v in cell["handwritten"].items()} == cell["framework"]
    pauses = scenarios["decisions_out_of_order"]["columns"]["pre_approval_state"]["framework"]["pauses"]
    assert [[p["call_id"] for p in pause["pending"]] for pause in pauses] == [["c1", "c2"], ["c1"]]  # the rejection is held: decided


def test_defaults_findings_are_the_measured_ones() -> None:
    effects = lambda sid: {c: v["effects"] for c, v in _framework("defaults", sid, "side_effects").items()}  # noqa: E731
    assert effects("always_deny") == {"c1": 1}  # no deny policy
    assert effects("tool_output_as_instruction")["c2"] == 1  # the injected drop_database ran
    assert effects("approval_misuse_other_args") == {"c1": 1}  # ToolApproved(override_args=...) ran the edited call
    assert effects("approval_misuse_reused") == {"c1": 1}  # {c1: True} at c2's pause: UserError, c2 never ran
    assert effects("duplicate_call_id") == {"c1": 2} and effects("resume_same_state_twice") == {"c1": 2}
    schema = _framework("defaults", "validation_before_execution", "schema_failure_side_effects")
    assert schema["c1"] == {"tool_entered": True, "executor_entries": 1, "effects": 1}  # "2" coerced to 2
    assert schema["c2"] == {"tool_entered": False, "executor_entries": 0, "effects": 0}  # an unknown field is a retry
    pause = _framework("defaults", "high_risk_in_parallel_batch", "pre_approval_state")["pauses"][0]
    assert pause["non_read_only_effects"] == {"c1": 1}  # the turn's note was written before the email was approved


def test_defaults_loses_what_a_kill_interrupts() -> None:
    crash = _framework("defaults", "crash_resume", "checkpoint_after_interrupt")
    assert crash["final_status"] == "crashed" and crash["interrupts"][0]["resumable"] is False  # nothing saved mid-run
    for sid in ("kill_before_effect", "side_effect_before_checkpoint"):
        # the kill came inside the approved call, so its approval was used (its executor entered) and none was open
        # at the kill: approval_survives is null (docs/evidence.md); what is lost is the decision itself: the resume
        # finds the run where the last finished run saved it, asking about the call again
        interrupt = _framework("defaults", sid, "checkpoint_after_interrupt")["interrupts"][0]
        assert (interrupt["resume_position"], interrupt["approval_survives"], interrupt["pending_call"]["call_id"]) == ("awaiting_approval", None, "c1"), sid
        assert "resumed_differently" in _mode("defaults")[sid]["columns"]["checkpoint_after_interrupt"]["rules"], sid


def test_defaults_has_no_step_bound_below_its_request_limit_and_tool_exceptions_end_the_run() -> None:
    step_bound = _mode("defaults")["step_bound"]
    assert step_bound["columns"]["status"]["framework"] == "completed"
    asked = step_bound["columns"]["model"]["framework"]["calls_per_turn"]
    assert len(asked) < step_bound["detail"]["default_request_limit"]  # read from the pinned environment
    for sid in ("retry_before_effect", "uncertain_after_timeout"):
        assert _framework("defaults", sid, "status") == "error" and _mode("defaults")[sid]["status"] == "ok", sid  # measured
