"""Two calls with a kill in one batch, under ``@siblings_first`` (``checkpoint_schedule._before_kill``): the kill that
fires first waits for the tasks of its siblings, never for the task of the call whose kill comes after it, which the
batch order (and the fixture world's order of two kills) holds at its hand-over behind the firing kill until the
process dies. Waiting for every other task of the super-step, as the hook did, waited for that held call too: neither
got on, and the step ended ``schedule siblings_first not forced`` after 10 s (the generator's gen_s13_0019)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from adapters.langchain.column import LangChainColumn
from harness.column_side.column_main import run_raw
from harness.scenarios import Scenario, load_scenarios


def two_kills(folder: Path) -> Scenario:
    """A read (c1), then a calculator call whose contract checkpoint is killed (c2), then a read with a kill after its
    effect, which a read never has (c3): c2's kill fires first, c3's never."""
    scenario = {
        "id": "two_kills_in_one_batch", "description": "Two calls with a kill beside a read in one batch.",
        "covers": ["parallel_tool_calls", "crash_resume"], "tools": ["calculator", "get_balance"],
        "session_id": "sess-two-kills", "user_input": "Balance and a sum, please.", "max_steps": 3,
        "model_script": [
            {"tool_calls": [
                {"id": "c1", "name": "get_balance", "arguments": {"account": "ACC-2"}},
                {"id": "c2", "name": "calculator", "arguments": {"a": 90, "b": 0, "op": "sub"}},
                {"id": "c3", "name": "get_balance", "arguments": {"account": "ACC-2"}},
            ]},
            {"text": "Done."},
        ],
        "driver": [{"action": "run", "event_id": "e1"}, {"action": "resume"}],
        "faults": [{"call_id": "c2", "point": "engine.kill_after_checkpoint"}, {"call_id": "c3", "point": "tool.kill_after_effect"}],
    }  # fmt: skip
    folder.mkdir()
    (folder / "two_kills_in_one_batch.json").write_text(json.dumps(scenario), encoding="utf-8")
    [loaded] = load_scenarios(folder)
    return loaded


@pytest.mark.parametrize("schedule", ["siblings_first", "kill_first"])
def test_the_first_kill_waits_for_its_siblings_tasks_not_for_the_call_held_behind_it(tmp_path: Path, schedule: str) -> None:
    column = LangChainColumn()
    column.prepare("contract")
    scenario = two_kills(tmp_path / "scenarios")
    assert schedule in column.schedules(scenario, "contract")
    started = time.monotonic()
    record = run_raw(column, scenario, "contract", tmp_path / "run", schedule=schedule)
    errors = [s.get("error") for s in record["steps"] if s.get("error") and s["session_status"] == "error"]
    assert errors == [] and [s["session_status"] for s in record["steps"]] == ["crashed", "completed"]
    before_kill = {c: n["executor_entries"] for c, n in record["steps"][0]["ledger"].items()}
    assert before_kill == ({"c1": 1} if schedule == "siblings_first" else {})  # siblings_first: the read ran before the kill
    resumed = {e["call_id"]: e["status"] for e in record["steps"][1]["trace"] if e["kind"] == "tool_result"}
    # c1's result was saved before the kill (siblings_first) or c1 first ran after it: never a replay of the glue's record
    assert resumed == {"c1": "ok", "c2": "ok", "c3": "ok"}
    assert {c: n["executor_entries"] for c, n in record["steps"][-1]["ledger"].items()} == {"c1": 1, "c2": 1, "c3": 1}
    assert time.monotonic() - started < 8  # not after the order's 10 s give-up
