"""Decisions reach their own calls, in any order, and the contract's step bound holds across a resume: whole
scenarios through the LangGraph column."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from adapters.langgraph.column import LangGraphColumn
from harness.column_side.column_main import run_raw
from harness.scenarios import load_scenarios


def run(tmp_path: Path, mode: str, **changes: Any) -> dict[str, Any]:
    """``decisions_out_of_order`` with ``changes``, through the column in ``mode``: what each step shows."""
    scenario = dataclasses.replace({s.id: s for s in load_scenarios()}["decisions_out_of_order"], **changes)
    record = run_raw(LangGraphColumn(), scenario, mode, tmp_path / f"{mode}-{scenario.id}")
    return {
        "statuses": [s["status"] for s in record["steps"]],
        "pending": [[p["call_id"] for p in s["pending"]] for s in record["steps"]],
        "effects": {c: n["effects"] for c, n in record["steps"][-1]["ledger"].items()},
        "entries": {c: n["tool_entries"] for c, n in record["steps"][-1]["ledger"].items()},
        "turns": record["model"]["calls_per_turn"],
    }


def pay(call_id: str, cents: int) -> dict[str, Any]:
    return {"id": call_id, "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": cents}}


def weather(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "name": "get_weather", "arguments": {"city": "Oslo"}}


@pytest.mark.parametrize("mode", ["defaults", "contract"])
def test_a_turns_calls_decided_one_at_a_time_in_reverse_order_each_reach_their_own_call(tmp_path: Path, mode: str) -> None:
    email = {"id": "c2", "name": "send_email", "arguments": {"to": "supplier@example.org", "subject": "Receipt", "body": "Paid."}}
    script = ({"tool_calls": [pay("c1", 100), email, pay("c3", 300)]}, {"text": "done"})
    driver = (
        {"action": "run", "event_id": "e1"},
        {"action": "reject", "call_id": "c3", "reason": "no"},
        {"action": "approve", "call_id": "c2"},
        {"action": "reject", "call_id": "c1", "reason": "no"},
    )
    seen = run(tmp_path, mode, id="reverse_order", model_script=script, driver=driver)
    assert seen["statuses"] == ["awaiting_approval", "awaiting_approval", "awaiting_approval", "completed"]
    assert seen["pending"] == [["c1", "c2", "c3"], ["c1", "c2"], ["c1"], []]  # the model's order, shrinking
    assert seen["effects"] == {"c2": 1} and seen["entries"] == {"c2": 1}  # only the approved email ran


def test_the_contract_step_bound_holds_across_a_resume(tmp_path: Path) -> None:
    """max_steps=2, both turns taken before the approval: the approval's resume continues the same count, so the
    model gets no third turn (a bound counted per invocation would start again at the resume and grant one)."""
    script = ({"tool_calls": [weather("c1")]}, {"tool_calls": [pay("c2", 100)]}, {"tool_calls": [weather("c3")]}, {"text": "done"})
    driver = ({"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "c2"})
    out = run(tmp_path, "contract", id="bound_across_resume", tools=("transfer_funds", "get_weather"), max_steps=2,
              model_script=script, driver=driver)
    assert out["statuses"] == ["awaiting_approval", "stopped_max_steps"]
    assert out["turns"] == {"0": 1, "1": 1}  # the two turns before the pause; none after the resume
    assert out["entries"] == {"c1": 1, "c2": 1}  # the approved call ran; c3 was never asked for
