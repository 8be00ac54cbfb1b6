"""The AgentScope column end to end on variants of committed scenarios (worker processes, a private ledger):
decisions reach their own calls whatever the order, the contract's step bound holds across a resume, and in
contract mode a turn is approved as a whole and nothing of it runs after an uncertain call before the reconcile."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from adapters.agentscope.column import AgentScopeColumn
from harness.column_side.column_main import run_raw
from harness.scenarios import Fault, load_scenarios


def run_variant(scratch: Path, key: str, base: str, mode: str, **changes: Any) -> dict[str, Any]:
    """Committed scenario ``base`` with ``changes``, named ``key`` and run in ``mode`` in ``scratch/key``: each step's
    session status, refusal, pending call ids and effects by call id (calls with effects only), and the model turns asked."""
    scenario = dataclasses.replace({s.id: s for s in load_scenarios()}[base], id=key, **changes)
    record = run_raw(AgentScopeColumn(), scenario, mode, scratch / key)
    return {
        "statuses": [s["session_status"] for s in record["steps"]],
        "refusals": [s["refusal"] for s in record["steps"]],
        "pending": [[p["call_id"] for p in s["pending"]] for s in record["steps"]],
        "effects": [{c: n["effects"] for c, n in s["ledger"].items() if n["effects"]} for s in record["steps"]],
        "entered": [{c: n["executor_entries"] for c, n in s["ledger"].items()} for s in record["steps"]],
        "turns": sorted(int(t) for t in record["model"]["calls_per_turn"]),
    }


@pytest.mark.parametrize("mode", ["defaults", "contract"])
def test_a_turns_decisions_one_at_a_time_in_reverse_order_each_reach_their_own_call(tmp_path: Path, mode: str) -> None:
    """Two high-risk calls ask together (one ``asyncio.gather``); the driver decides ``c2`` before ``c1``. AgentScope
    takes each ``ConfirmResult`` for the call it names: a confirmed call runs at once, its sibling keeps asking. The
    contract glue holds an approval until the turn's last call is decided (a turn is approved as a whole)."""
    drivers = {
        "reject_then_approve": ({"action": "run", "event_id": "e1"}, {"action": "reject", "call_id": "c2"}, {"action": "approve", "call_id": "c1"}),
        "approve_both": ({"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "c2"}, {"action": "approve", "call_id": "c1"}),
    }
    rejected, approved = (run_variant(tmp_path, f"{name}_{mode}", "decisions_out_of_order", mode, driver=driver) for name, driver in drivers.items())
    for run in (rejected, approved):
        assert run["statuses"] == ["awaiting_approval", "awaiting_approval", "completed"], run
        assert run["refusals"] == [None, None, None], run
        assert run["pending"] == [["c1", "c2"], ["c1"], []], run
    # the rejected email never runs; the transfer runs once, on its own approval
    assert rejected["effects"] == [{}, {}, {"c1": 1}]
    # defaults: the email runs as soon as it is approved, while the transfer still asks; then the transfer, once.
    # contract: both run on the transfer's approval
    assert approved["effects"] == [{}, {"c2": 1} if mode == "defaults" else {}, {"c1": 1, "c2": 1}]


def test_the_contract_step_bound_counts_the_turns_since_the_user_input_across_a_resume(tmp_path: Path) -> None:
    """``max_steps`` 2, and a kill before the second model turn: the resumed reply starts AgentScope's ``cur_iter``
    at 0 again, yet the model gets only the one turn left (turn 1), never turn 2."""
    script = (
        {"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call back."}}]},
        {"tool_calls": [{"id": "c2", "name": "get_weather", "arguments": {"city": "Paris"}}]},
        {"tool_calls": [{"id": "c3", "name": "get_weather", "arguments": {"city": "Rome"}}]},
        {"text": "Done."},
    )
    run = run_variant(tmp_path, "bound_across_resume", "crash_resume", "contract", max_steps=2, model_script=script)
    assert run["statuses"] == ["crashed", "stopped_max_steps"]
    assert run["turns"] == [0, 1]  # turn 1 asked twice (killed, then resumed); turn 2 never
    assert run["effects"][-1] == {"c1": 1}  # the note once; c2 and c3 are reads


TRANSFER = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 100}
NOTE = {"id": "n1", "name": "put_note", "arguments": {"key": "k", "text": "t"}}


def test_the_contract_runs_nothing_of_a_turn_before_its_last_high_risk_call_is_decided(tmp_path: Path) -> None:
    """A read, a flaky note and two transfers in one turn. AgentScope would run the read and every attempt of the note
    beside the transfers that ask, and the first transfer on its own confirmation; the glue makes the read and the note
    ask with the transfers (hidden from the driver) and holds the first approval: the whole turn runs on the second."""
    calls = [{"id": "b1", "name": "get_balance", "arguments": {"account": "ACC-1"}}, NOTE,
             {"id": "t1", "name": "transfer_funds", "arguments": TRANSFER}, {"id": "t2", "name": "transfer_funds", "arguments": {**TRANSFER, "amount_cents": 200}}]
    run = run_variant(tmp_path, "whole_turn", "high_risk_in_parallel_batch", "contract", tools=("get_balance", "put_note", "transfer_funds"),
                      model_script=({"tool_calls": calls}, {"text": "Done."}), faults=(Fault("tool.raise_before_effect", call_id="n1"),),
                      driver=({"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "t1"}, {"action": "approve", "call_id": "t2"}))
    assert run["statuses"] == ["awaiting_approval", "awaiting_approval", "completed"]
    assert run["pending"] == [["t1", "t2"], ["t2"], []]
    assert run["entered"] == [{}, {}, {"b1": 1, "n1": 2, "t1": 1, "t2": 1}]  # the note's failed attempt, then its effect


def test_the_contract_pays_no_second_transfer_while_the_first_is_uncertain(tmp_path: Path) -> None:
    """Two approved transfers in one turn, the first times out after its effect. AgentScope runs the rest of a batch
    when one call raises; the glue stops the second before it enters its tool, and it runs after the reconcile."""
    calls = [{"id": "t1", "name": "transfer_funds", "arguments": TRANSFER}, {"id": "t2", "name": "transfer_funds", "arguments": {**TRANSFER, "amount_cents": 200}}]
    run = run_variant(tmp_path, "uncertain_then_second", "high_risk_in_parallel_batch", "contract", tools=("transfer_funds",),
                      model_script=({"tool_calls": calls}, {"text": "Done."}), faults=(Fault("tool.timeout_after_effect", call_id="t1"),),
                      driver=({"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "t1"}, {"action": "approve", "call_id": "t2"},
                              {"action": "reconcile", "call_id": "t1", "outcome": "confirmed"}))
    assert run["statuses"] == ["awaiting_approval", "awaiting_approval", "reconcile_required", "completed"]
    assert run["entered"] == [{}, {}, {"t1": 1}, {"t1": 1, "t2": 1}]
