"""A batch's calls handed over one after another, in the model's order (``checkpoint_schedule.order_batches``): a balance
read beside an approved transfer in one batch reads the same balance in every run, whichever of ``create_agent``'s
tasks (one per call) gets to its tool first."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from adapters.langchain.column import LangChainColumn
from harness.column_side.column_main import run_raw
from harness.column_side.world import FixtureWorld
from harness.scenarios import Scenario, load_scenarios

TRANSFER = {"id": "t1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}}
BALANCE = {"id": "b1", "name": "get_balance", "arguments": {"account": "ACC-1"}}


def batch_scenario(folder: Path, first: str) -> Scenario:
    """One turn of a transfer and a balance read of its source account, ``first`` listed first; the transfer approved."""
    calls = [TRANSFER, BALANCE] if first == "t1" else [BALANCE, TRANSFER]
    scenario = {
        "id": "balance_beside_transfer", "description": "A balance read beside an approved transfer in one batch.",
        "covers": ["parallel_tool_calls", "high_risk_before_approval"], "tools": ["get_balance", "transfer_funds"],
        "session_id": "sess-batch", "user_input": "Send 25.00 from ACC-1 to ACC-2 and tell me the balance.", "max_steps": 4,
        "model_script": [{"tool_calls": calls}, {"text": "Sent."}],
        "driver": [{"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "t1"}], "faults": [],
    }  # fmt: skip
    folder.mkdir()
    (folder / "balance_beside_transfer.json").write_text(json.dumps(scenario), encoding="utf-8")
    [loaded] = load_scenarios(folder)
    return loaded


@pytest.mark.parametrize("mode", ["defaults", "contract"])
@pytest.mark.parametrize(("first", "balance"), [("t1", 97500), ("b1", 100000)])
def test_the_call_the_model_lists_first_runs_first_even_when_its_thread_comes_late(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, first: str, balance: int
) -> None:
    """The first call is held back 0.3 s at its tool's entry, the race the other call would win unordered: the balance
    is still read after the transfer when the model listed the transfer first, and before it otherwise."""
    entered = FixtureWorld.enter

    def late(self: FixtureWorld, tool: str, call_id: str, raw_args: Any) -> None:
        if call_id == first:
            time.sleep(0.3)
        entered(self, tool, call_id, raw_args)

    monkeypatch.setattr(FixtureWorld, "enter", late)  # the driver's workers are forked from here: they inherit it
    column = LangChainColumn()
    column.prepare(mode)
    record = run_raw(column, batch_scenario(tmp_path / "scenarios", first), mode, tmp_path / "run")
    results = {e["call_id"]: json.loads(e["content"]) for step in record["steps"] for e in step["trace"] if e["kind"] == "tool_result"}
    assert [s["session_status"] for s in record["steps"]] == ["awaiting_approval", "completed"]
    assert results["t1"]["status"] == "sent" and results["b1"]["balance_cents"] == balance


def test_a_call_its_tool_refuses_or_an_unknown_tool_does_not_hold_the_batch(tmp_path: Path) -> None:
    """x1's arguments fail the ``@tool`` model (``defaults``) and u1 names no tool: neither reaches the fixture world, and
    b1, listed after them, runs at once (LangChain's tool callbacks end x1; u1 is never waited for), not after the
    order's give-up time."""
    scenario = {
        "id": "refused_beside_read", "description": "Two calls that never reach a tool before a read.", "covers": ["parallel_tool_calls"],
        "tools": ["get_balance"], "session_id": "sess-refused", "user_input": "Balance?", "max_steps": 4,
        "model_script": [
            {"tool_calls": [{"id": "x1", "name": "get_balance", "arguments": {"account": 5}}, {"id": "u1", "name": "no_such_tool", "arguments": {}}, BALANCE]},
            {"text": "Here it is."},
        ],
        "driver": [{"action": "run", "event_id": "e1"}], "faults": [],
    }  # fmt: skip
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "refused_beside_read.json").write_text(json.dumps(scenario), encoding="utf-8")
    column = LangChainColumn()
    column.prepare("defaults")
    started = time.monotonic()
    record = run_raw(column, load_scenarios(folder)[0], "defaults", tmp_path / "run")
    assert [s["session_status"] for s in record["steps"]] == ["completed"] and time.monotonic() - started < 5
