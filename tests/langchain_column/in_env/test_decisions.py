"""Decisions by call id on LangChain's batched HITL: a turn's calls decided one at a time, in any order, each
reach their own call (the column holds them until the turn is decided, then answers in the interrupt's order)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from adapters.langchain.column import LangChainColumn
from harness.column_side.column_main import run_raw
from harness.scenarios import SCENARIO_DIR, load_scenario

COMMITTED = load_scenario(SCENARIO_DIR / "decisions_out_of_order.json")  # reject c2 (email), then approve c1 (transfer)
FLIPPED = dataclasses.replace(COMMITTED, driver=(  # the reverse decisions, still in reverse order: approve c2, then reject c1
    {"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "c2"}, {"action": "reject", "call_id": "c1", "reason": "no"}))


def run(tmp_path: Path, mode: str, name: str) -> dict[str, Any]:
    """The committed or the flipped scenario through the column in ``mode``: what each step and the trace show."""
    record = run_raw(LangChainColumn(), {"committed": COMMITTED, "flipped": FLIPPED}[name], mode, tmp_path / f"{mode}-{name}")
    trace = [e for s in record["steps"] for e in s["trace"]]
    return {
        "statuses": [s["session_status"] for s in record["steps"]],
        "pending": [[p["call_id"] for p in s["pending"]] for s in record["steps"]],
        "effects": {c: n["effects"] for c, n in record["steps"][-1]["ledger"].items()},
        "results": {e["call_id"]: e["status"] for e in trace if e["kind"] == "tool_result"},
        "held": [e["call_id"] for e in trace if e["kind"] == "decision_held"],
    }


@pytest.mark.parametrize("mode", ["defaults", "contract"])
def test_each_decision_reaches_its_own_call_whatever_order_the_driver_decides_in(tmp_path: Path, mode: str) -> None:
    committed, flipped = run(tmp_path, mode, "committed"), run(tmp_path, mode, "flipped")
    for seen in (committed, flipped):
        assert seen["statuses"] == ["awaiting_approval", "awaiting_approval", "completed"]
        # the interrupt lists the turn's calls in the model's order; the first decision is held for the second and
        # its call, decided, is no longer pending
        assert seen["pending"] == [["c1", "c2"], ["c1"], []]
    assert committed["held"] == ["c2"] and flipped["held"] == ["c2"]
    # rejected email never entered, approved transfer ran once ...
    assert committed["effects"] == {"c1": 1} and committed["results"] == {"c1": "ok", "c2": "error"}
    # ... and with the decisions flipped, the other way round: no decision landed on the other call
    assert flipped["effects"] == {"c2": 1} and flipped["results"] == {"c1": "error", "c2": "ok"}
