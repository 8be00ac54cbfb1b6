"""AgentScope's own confirmations in ``defaults``, end to end on a variant of a committed scenario (worker processes, a
private ledger): each ``ConfirmResult`` reaches the call it names, and a confirmed call runs at once while its sibling
still asks. The contract's decisions, step bound and glue, the same for every column, are the conformance suite's
(``tests/column_conformance``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from adapters.agentscope.column import AgentScopeColumn
from harness.column_side.column_main import run_raw
from harness.scenarios import load_scenarios


def run_variant(scratch: Path, key: str, base: str, mode: str, **changes: Any) -> dict[str, Any]:
    """Committed scenario ``base`` with ``changes``, named ``key`` and run in ``mode`` in ``scratch/key``: each step's
    session status, refusal, pending call ids and effects by call id (calls with effects only)."""
    scenario = dataclasses.replace({s.id: s for s in load_scenarios()}[base], id=key, **changes)
    record = run_raw(AgentScopeColumn(), scenario, mode, scratch / key)
    return {
        "statuses": [s["session_status"] for s in record["steps"]],
        "refusals": [s["refusal"] for s in record["steps"]],
        "pending": [[p["call_id"] for p in s["pending"]] for s in record["steps"]],
        "effects": [{c: n["effects"] for c, n in s["ledger"].items() if n["effects"]} for s in record["steps"]],
    }


def test_a_turns_confirmations_one_at_a_time_in_reverse_order_each_reach_their_own_call(tmp_path: Path) -> None:
    """Two high-risk calls ask together (one ``asyncio.gather``); the driver decides ``c2`` before ``c1``. AgentScope
    takes each ``ConfirmResult`` for the call it names: a confirmed call runs at once, its sibling keeps asking."""
    drivers = {
        "reject_then_approve": ({"action": "run", "event_id": "e1"}, {"action": "reject", "call_id": "c2"}, {"action": "approve", "call_id": "c1"}),
        "approve_both": ({"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "c2"}, {"action": "approve", "call_id": "c1"}),
    }
    rejected, approved = (run_variant(tmp_path, name, "decisions_out_of_order", "defaults", driver=driver) for name, driver in drivers.items())
    for run in (rejected, approved):
        assert run["statuses"] == ["awaiting_approval", "awaiting_approval", "completed"], run
        assert run["refusals"] == [None, None, None], run
        assert run["pending"] == [["c1", "c2"], ["c1"], []], run
    # the rejected email never runs; the transfer runs once, on its own approval
    assert rejected["effects"] == [{}, {}, {"c1": 1}]
    # the email runs as soon as it is approved, while the transfer still asks; then the transfer, once
    assert approved["effects"] == [{}, {"c2": 1}, {"c1": 1, "c2": 1}]
