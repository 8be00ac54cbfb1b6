"""The AgentScope column end to end: its environment built from the lock, every scenario in both modes,
and the committed evidence (``evidence/agentscope.json``) regenerated and checked."""

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


def _evidence() -> dict:
    return json.loads(EVIDENCE.read_text(encoding="utf-8"))


def test_contract_mode_differs_only_where_agentscope_cannot_follow_and_says_why() -> None:
    scenarios = _evidence()["modes"]["contract"]["scenarios"]
    unequal = {(sid, name): c["reason"] for sid, s in scenarios.items() for name, c in s["columns"].items() if c["equal"] is False}
    assert set(unequal) == set(CONTRACT_UNEQUAL)
    for cell, phrase in CONTRACT_UNEQUAL.items():
        assert phrase in unequal[cell], (cell, unequal[cell])


def test_every_defaults_difference_names_an_agentscope_behaviour() -> None:
    scenarios = _evidence()["modes"]["defaults"]["scenarios"]
    for sid, s in scenarios.items():
        for name, c in s["columns"].items():
            if c["equal"] is False:
                assert "AgentScope" in c["reason"] or "agentscope" in c["reason"] or s["status"] == "error", (sid, name, c["reason"])
