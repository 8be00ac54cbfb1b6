"""The OpenAI Agents SDK column end to end: its environment built from the lock, every scenario in both
modes, and the committed evidence (``evidence/openai_agents.json``) regenerated and checked."""

from __future__ import annotations

import json

from harness.columns import ROOT

EVIDENCE = ROOT / "evidence" / "openai_agents.json"
# contract cells the SDK gives no way to make equal (each explained in the evidence), besides
# idempotent_replay.provided_by = glue where the deduplication is contract glue.
NOT_EXPRESSIBLE = {
    ("duplicate_call_id", "status"),  # the SDK drops a repeated call id and loops until max_turns
    ("duplicate_call_id", "step_statuses"),
    ("duplicate_call_id", "model"),
    ("duplicate_call_id", "idempotent_replay"),
    ("high_risk_in_parallel_batch", "pre_approval_state"),  # the turn's no-approval call runs before the pause
    ("kill_after_checkpoint", "model"),  # no state inside a turn: the resume asks the model again
    ("kill_after_checkpoint", "checkpoint_after_interrupt"),
    ("timeout_beside_write_not_executed", "model"),  # the SDK saves no output of a stopped turn: the resume asks again
    ("reused_call_id_other_args", "status"),  # ModelBehaviorError before any tool runs: the glue never sees the call
    ("reused_call_id_other_args", "step_statuses"),
    ("reused_call_id_other_args", "model"),
    ("reused_call_id_other_args", "idempotent_replay"),
    ("unknown_tool_called", "status"),  # ModelBehaviorError on a tool the agent was not given: the glue never sees the call
    ("unknown_tool_called", "step_statuses"),
    ("unknown_tool_called", "model"),
}
GLUE_DEDUP = {(sid, "idempotent_replay") for sid in ("duplicate_event", "redelivery_while_pending", "resume_same_state_twice")}


def _evidence() -> dict:
    return json.loads(EVIDENCE.read_text(encoding="utf-8"))


def test_no_committed_scenario_is_split_into_forced_orderings() -> None:
    """The SDK writes nothing in the background, so no kill races a write; its concurrent function tools race only a
    kill inside a batch, which no committed scenario has (tests/test_sibling_orders.py runs one)."""
    for body in _evidence()["modes"].values():
        assert not any(s["schedule"] for s in body["scenarios"].values())


def test_contract_mode_differs_only_where_the_sdk_cannot_express_the_contract() -> None:
    scenarios = _evidence()["modes"]["contract"]["scenarios"]
    unequal = {(sid, name) for sid, s in scenarios.items() for name, c in s["columns"].items() if c["equal"] is False}
    assert unequal == NOT_EXPRESSIBLE | GLUE_DEDUP
    for sid, name in GLUE_DEDUP:
        assert "deduplicated_by_glue" in scenarios[sid]["columns"][name]["rules"]
    for sid, name in unequal:  # every difference carries a rule's reason, derived from the run's own records
        assert scenarios[sid]["columns"][name]["rules"] and "unexplained" not in scenarios[sid]["columns"][name], (sid, name)


def test_every_defaults_difference_is_explained() -> None:
    scenarios = _evidence()["modes"]["defaults"]["scenarios"]
    for sid, s in scenarios.items():
        for name, cell in s["columns"].items():
            if cell["equal"] is False:
                assert cell["rules"] and "unexplained" not in cell, (sid, name)
