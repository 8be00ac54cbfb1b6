"""The AgentScope column end to end on variants of committed scenarios (worker processes, a private ledger):
decisions reach their own calls whatever the order, and the contract's step bound holds across a resume."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from adapters.agentscope.column import AgentScopeColumn
from harness.column_side.column_main import run_raw
from harness.scenarios import load_scenarios


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
        "turns": sorted(int(t) for t in record["model"]["calls_per_turn"]),
    }


@pytest.mark.parametrize("mode", ["defaults", "contract"])
def test_a_turns_decisions_one_at_a_time_in_reverse_order_each_reach_their_own_call(tmp_path: Path, mode: str) -> None:
    """Two high-risk calls ask together (one ``asyncio.gather``); the driver decides ``c2`` before ``c1``. AgentScope
    takes each ``ConfirmResult`` for the call it names: a confirmed call runs at once, its sibling keeps asking."""
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
    # the email runs as soon as it is approved, while the transfer still asks; then the transfer, once
    assert approved["effects"] == [{}, {"c2": 1}, {"c1": 1, "c2": 1}]


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
