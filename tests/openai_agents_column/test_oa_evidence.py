"""The OpenAI Agents SDK column end to end: its environment built from the lock, every scenario in both
modes, and the committed evidence (``evidence/openai_agents.json``) regenerated and checked."""

from __future__ import annotations

import json

from harness.column_side.fixtures.sibling_order import killed_siblings
from harness.columns import ROOT
from harness.scenarios import load_scenarios

EVIDENCE = ROOT / "evidence" / "openai_agents.json"
# contract cells the SDK gives no way to make equal (each explained in the evidence), besides
# idempotent_replay.provided_by = glue where the deduplication is contract glue.
NOT_EXPRESSIBLE = {
    ("duplicate_call_id", "status"),  # the SDK drops a repeated call id and loops until max_turns
    ("duplicate_call_id", "step_statuses"),
    ("duplicate_call_id", "model"),
    ("duplicate_call_id", "idempotent_replay"),
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
    # the SDK saves a turn's outputs only when the turn ends: the resume after the kill inside t2 runs the turn again,
    # so the read b1, which ran before the kill, runs again (the writes meet their records: MAPPING.md, "A turn approved
    # as a whole")
    ("two_transfers_flaky_note_kill", "side_effects"),
}
# high_risk_in_parallel_batch's pre_approval_state is equal now: the glue holds the turn's other calls until its
# high-risk call is decided (MAPPING.md, "A turn approved as a whole"). Cell -> the rule that says what the SDK did.
NOT_EXPRESSIBLE_RULES = {("two_transfers_flaky_note_kill", "side_effects"): "executed_again"}
GLUE_DEDUP = {(sid, "idempotent_replay") for sid in (
    "duplicate_event", "redelivery_while_pending", "resume_same_state_twice",
    "kill_in_batch_after_approved",  # the resume's run meets t1's and n1's records, and the redelivered event is refused
    # the redelivered event is refused by the glue; t1's first result is the SDK's rejection, its `rejection_message`
    # as is ("not approved"), where the engine's is its JSON error (results_differ)
    "rejected_then_restored_approved",
)}
# the committed scenarios whose tool kill shares its turn with other calls (harness.column_side.fixtures.sibling_order)
BATCH_KILLS = ("kill_in_batch_after_approved", "misused_approval_kill_resume", "two_transfers_flaky_note_kill")


def _evidence() -> dict:
    return json.loads(EVIDENCE.read_text(encoding="utf-8"))


def test_only_the_kills_inside_a_batch_are_split_into_sibling_orders_and_only_outside_contract() -> None:
    """The SDK writes nothing in the background, so no kill races a write; its concurrent function tools
    (``asyncio.to_thread``) race only a kill inside a batch, so in defaults and wire each scenario with one is recorded
    once per sibling order, ``@siblings_first`` and ``@kill_first`` (MAPPING.md, "A kill inside one call of a batch").
    Contract runs a turn's calls one at a time (``max_function_tool_concurrency=1``): no sibling has started when the
    kill fires, nothing to order, no sub-case."""
    scenarios = load_scenarios(ROOT / "scenarios")
    assert {s.id for s in scenarios if killed_siblings(s)} == set(BATCH_KILLS)
    forced = {f"{sid}@{order}" for sid in BATCH_KILLS for order in ("siblings_first", "kill_first")}
    for mode, body in _evidence()["modes"].items():
        split = {key: s["schedule"] for key, s in body["scenarios"].items() if s["schedule"]}
        assert split == ({key: key.split("@", 1)[1] for key in forced} if mode != "contract" else {}), mode
        assert set(BATCH_KILLS) & set(body["scenarios"]) == (set(BATCH_KILLS) if mode == "contract" else set()), mode


def test_contract_mode_differs_only_where_the_sdk_cannot_express_the_contract() -> None:
    scenarios = _evidence()["modes"]["contract"]["scenarios"]
    unequal = {(sid, name) for sid, s in scenarios.items() for name, c in s["columns"].items() if c["equal"] is False}
    assert unequal == NOT_EXPRESSIBLE | GLUE_DEDUP
    for sid, name in GLUE_DEDUP:
        assert "deduplicated_by_glue" in scenarios[sid]["columns"][name]["rules"]
    for (sid, name), rule in NOT_EXPRESSIBLE_RULES.items():
        assert rule in scenarios[sid]["columns"][name]["rules"], (sid, name)
    assert "results_differ" in scenarios["rejected_then_restored_approved"]["columns"]["idempotent_replay"]["rules"]
    for sid, name in unequal:  # every difference carries a rule's reason, derived from the run's own records
        assert scenarios[sid]["columns"][name]["rules"] and "unexplained" not in scenarios[sid]["columns"][name], (sid, name)


def test_every_defaults_difference_is_explained() -> None:
    scenarios = _evidence()["modes"]["defaults"]["scenarios"]
    for sid, s in scenarios.items():
        for name, cell in s["columns"].items():
            if cell["equal"] is False:
                assert cell["rules"] and "unexplained" not in cell, (sid, name)
