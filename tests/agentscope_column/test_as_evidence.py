"""The AgentScope column's committed evidence (``evidence/agentscope.json``): where each mode differs from the
hand-written engine, and why."""

from __future__ import annotations

import json

from harness.columns import ROOT
from harness.modes import GLUE_MODES

EVIDENCE = ROOT / "evidence" / "agentscope.json"
# contract: AgentScope never answers a repeated call id, and hands a call the model's arguments as they came; the
# other differences are deduplication that is glue, not AgentScope's. The glue holds a whole turn for its high-risk
# calls (MAPPING.md, "A turn approved as a whole"), so high_risk_in_parallel_batch's pre_approval_state is equal now.
# Cell -> the rule that explains it.
CONTRACT_UNEQUAL = {
    ("duplicate_call_id", "idempotent_replay"): "repeat_not_answered",
    ("duplicate_event", "idempotent_replay"): "deduplicated_by_glue",
    ("kill_in_batch_after_approved", "idempotent_replay"): "deduplicated_by_glue",  # the redelivered event: t1, n1 replayed by the glue's records
    ("redelivery_while_pending", "idempotent_replay"): "deduplicated_by_glue",
    # the redelivered event is the glue's to refuse; t1's first result is AgentScope's own denial
    # ("<system-reminder>... is denied by user!</system-reminder>", results_differ: refused where the engine says rejected)
    ("rejected_then_restored_approved", "idempotent_replay"): "deduplicated_by_glue",
    # o1, o2 name the session's own user: the contract lets them run, but FunctionTool hands list_orders (bound to the
    # session's user, no parameter) the model's `username` as is: a TypeError is the call's error result, the tool never
    # entered (MAPPING.md, "A tool that acts for the session's user")
    ("rejected_then_restored_approved", "side_effects"): "ran_less_often",
    ("resume_same_state_twice", "idempotent_replay"): "deduplicated_by_glue",
    ("reused_call_id_other_args", "idempotent_replay"): "repeat_not_answered",  # the repeat with other arguments is dropped
    # max_steps 1, passed as AgentScope's own bound, ends the reply after the first model turn, before its tool runs, so
    # the kill inside the tool never fires (a difference of the glue's bound, not yet examined: docs/explore.md)
    **{("snapshot_of_crashed_run", name): "stopped_by_own_bound" for name in ("status", "step_statuses", "checkpoint_after_interrupt")},
    ("snapshot_of_crashed_run", "side_effects"): "ran_less_often",
}


def _scenarios(mode: str) -> dict:
    return json.loads(EVIDENCE.read_text(encoding="utf-8"))["modes"][mode]["scenarios"]


def test_contract_mode_differs_only_where_agentscope_cannot_follow_and_says_why() -> None:
    unequal = {(sid, name): c["rules"] for sid, s in _scenarios("contract").items() for name, c in s["columns"].items() if c["equal"] is False}
    assert set(unequal) == set(CONTRACT_UNEQUAL)
    for cell, rule in CONTRACT_UNEQUAL.items():
        assert rule in unequal[cell], (cell, unequal[cell])


def test_every_defaults_difference_is_explained_by_a_rule() -> None:
    for sid, s in _scenarios("defaults").items():
        for name, c in s["columns"].items():
            if c["equal"] is False:
                assert c["rules"] and "unexplained" not in c, (sid, name, c["reason"])


def test_defaults_ask_for_every_function_tool_and_the_reason_says_so() -> None:
    """``FunctionTool(fn)`` at its defaults is neither read-only nor allowed: every read asks. The driver answers each
    with the contract's decision at a sub-step of the step that paused, so the loop runs on to the final answer."""
    basic = _scenarios("defaults")["basic_react_loop"]
    cells = basic["columns"]
    assert cells["status"]["equal"] is True and cells["side_effects"]["equal"] is True
    assert [(d["step"], d["sub_step"], d["call_id"], d["decision"]) for d in cells["pre_approval_state"]["framework"]["implicit_decisions"]] == [
        (0, 1, "c1", "approve"), (0, 2, "c2", "approve"), (0, 3, "c3", "approve")]
    assert "asked_about_other_calls" in cells["pre_approval_state"]["rules"]
    assert "the run paused for approval of c1 (get_weather, read_only)" in cells["pre_approval_state"]["reason"]
    assert [d["call_id"] for d in basic["facts"][0]["implicit_decision"]] == ["c1", "c2", "c3"]


def test_defaults_are_measured_past_the_first_question() -> None:
    """The four scenarios that used to stop at AgentScope's first question now show what it does after it."""
    scenarios = _scenarios("defaults")
    beyond = {"validation_before_execution": "invalid_args_ran", "duplicate_call_id": "repeat_not_answered",
              "duplicate_event": "redelivered_as_new_turn", "retry_before_effect": "tool_error_not_retried"}
    for sid, rule in beyond.items():
        assert rule in {r["rule"] for r in scenarios[sid]["reasons"]}, sid
        assert scenarios[sid]["columns"]["status"]["framework"] == "completed", sid
    assert not _scenarios("contract")["basic_react_loop"]["facts"][0].get("implicit_decision")  # contract never answers implicitly


def test_decisions_out_of_order_reach_their_own_calls_in_both_modes() -> None:
    for mode in GLUE_MODES:  # defaults and contract
        cells = _scenarios(mode)["decisions_out_of_order"]["columns"]
        for name in ("status", "step_statuses", "refusals", "side_effects", "pre_approval_state"):
            assert cells[name]["equal"] is True, (mode, name, cells[name])
