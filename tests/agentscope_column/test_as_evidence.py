"""The AgentScope column's committed evidence (``evidence/agentscope.json``): where each mode differs from the
hand-written engine, and why."""

from __future__ import annotations

import json

from harness.columns import ROOT

EVIDENCE = ROOT / "evidence" / "agentscope.json"
# contract: AgentScope cannot hold a whole turn for one approval, and never runs a repeated call id;
# the other differences are deduplication that is glue, not AgentScope's.
CONTRACT_UNEQUAL = {
    ("duplicate_call_id", "idempotent_replay"): "matches tool results to calls by id",
    ("duplicate_event", "idempotent_replay"): "contract glue",
    ("high_risk_in_parallel_batch", "pre_approval_state"): "decides permission per call",
    ("resume_same_state_twice", "idempotent_replay"): "contract glue",
}


def _scenarios(mode: str) -> dict:
    return json.loads(EVIDENCE.read_text(encoding="utf-8"))["modes"][mode]["scenarios"]


def test_contract_mode_differs_only_where_agentscope_cannot_follow_and_says_why() -> None:
    unequal = {(sid, name): c["reason"] for sid, s in _scenarios("contract").items() for name, c in s["columns"].items() if c["equal"] is False}
    assert set(unequal) == set(CONTRACT_UNEQUAL)
    for cell, phrase in CONTRACT_UNEQUAL.items():
        assert phrase in unequal[cell], (cell, unequal[cell])


def test_every_defaults_difference_names_an_agentscope_behaviour() -> None:
    for sid, s in _scenarios("defaults").items():
        for name, c in s["columns"].items():
            if c["equal"] is False:
                assert "AgentScope" in c["reason"] or "agentscope" in c["reason"] or s["status"] == "error", (sid, name, c["reason"])


def test_defaults_ask_for_every_function_tool_and_the_reason_says_so() -> None:
    """``FunctionTool(fn)`` at its defaults is neither read-only nor allowed: the first read pauses the run."""
    basic = _scenarios("defaults")["basic_react_loop"]["columns"]
    assert basic["status"]["framework"] == "awaiting_approval"
    assert "c1 (get_weather) waited for a human" in basic["status"]["reason"]


def test_decisions_out_of_order_reach_their_own_calls_in_both_modes() -> None:
    for mode in ("defaults", "contract"):
        cells = _scenarios(mode)["decisions_out_of_order"]["columns"]
        for name in ("status", "step_statuses", "refusals", "side_effects", "pre_approval_state"):
            assert cells[name]["equal"] is True, (mode, name, cells[name])
