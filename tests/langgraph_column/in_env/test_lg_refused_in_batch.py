"""The batch order (``checkpoint_schedule.order_batches``) on LangChain's tool callbacks: a call the framework ends before
the fixture world sees it (its ``@tool`` model refuses the arguments, or it names no tool) does not hold the calls after
it. That the calls of a batch run in the model's order is the conformance suite's (``tests/column_conformance``)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from adapters.langgraph.column import LangGraphColumn
from harness.column_side.column_main import run_raw
from harness.scenarios import load_scenarios

BALANCE = {"id": "b1", "name": "get_balance", "arguments": {"account": "ACC-1"}}


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
    column = LangGraphColumn()
    column.prepare("defaults")
    started = time.monotonic()
    record = run_raw(column, load_scenarios(folder)[0], "defaults", tmp_path / "run")
    assert [s["session_status"] for s in record["steps"]] == ["completed"] and time.monotonic() - started < 5
