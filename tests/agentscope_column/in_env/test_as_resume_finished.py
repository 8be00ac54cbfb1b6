"""A ``resume`` of a conversation whose last reply ended (``contract``): nothing to continue, so no reply starts, as the
engine's resume of a completed or step-bounded run returns it as it is. AgentScope's ``reply(None)`` would start a new
reply from the saved context and ask the model for another turn; the glue's step bound, counting the finished reply's
turns, stopped that new reply at once (``stopped_max_steps`` where the engine said ``completed``: the generator's
gen_s13_0020). A reply killed after an earlier one ended is still continued."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from adapters.agentscope.column import AgentScopeColumn
from harness.column_side.column_main import run_raw
from harness.scenarios import load_scenarios

NOTE = {"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call back."}}


def run(tmp_path: Path, key: str, max_steps: int, script: list[dict[str, Any]], driver: list[dict[str, Any]], faults: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    scenario = {
        "id": key, "description": "A resume after a reply ended.", "covers": ["basic_react", "crash_resume"],
        "tools": ["put_note", "get_weather", "transfer_funds"], "session_id": f"sess-{key}", "user_input": "Take a note.", "max_steps": max_steps,
        "model_script": script, "driver": driver, "faults": list(faults),
    }  # fmt: skip
    folder = tmp_path / key / "scenarios"
    folder.mkdir(parents=True)
    (folder / f"{key}.json").write_text(json.dumps(scenario), encoding="utf-8")
    record = run_raw(AgentScopeColumn(), load_scenarios(folder)[0], "contract", tmp_path / key / "run")
    return {
        "statuses": [s["session_status"] for s in record["steps"]],
        "resumed": [[e["position"] for e in s["trace"] if e["kind"] == "resumed"] for s in record["steps"]],
        "turns": sorted(int(t) for t in record["model"]["calls_per_turn"]),
    }


def test_a_resume_after_the_reply_answered_starts_no_reply(tmp_path: Path) -> None:
    """max_steps 1, the model answers at once: the resume finds the run completed and asks the model nothing."""
    out = run(tmp_path, "answered", 1, [{"text": "Done."}], [{"action": "run", "event_id": "e1"}, {"action": "resume"}])
    assert out == {"statuses": ["completed", "completed"], "resumed": [[], []], "turns": [0]}


def test_a_resume_after_the_step_bound_stopped_the_reply_starts_no_reply(tmp_path: Path) -> None:
    """max_steps 1 spent on a tool turn: the run stopped at the bound, and the resume leaves it there, as the engine's."""
    out = run(tmp_path, "bounded", 1, [{"tool_calls": [NOTE]}, {"text": "Noted."}], [{"action": "run", "event_id": "e1"}, {"action": "resume"}])
    assert out == {"statuses": ["stopped_max_steps", "stopped_max_steps"], "resumed": [[], []], "turns": [0]}


def test_a_reply_killed_after_an_earlier_one_answered_is_continued(tmp_path: Path) -> None:
    """The first reply answered (its status saved); the second is killed as the model is asked for its answer: the resume continues
    the second reply (the saved status is the first reply's, not the state's), and the model answers it."""
    script = [{"text": "Hello."}, {"tool_calls": [NOTE]}, {"text": "Noted."}]
    driver = [{"action": "run", "event_id": "e1"}, {"action": "run", "event_id": "e2", "input": "Now the note."}, {"action": "resume"}]
    out = run(tmp_path, "killed", 3, script, driver, ({"point": "model.kill_before_turn", "turn": 2},))
    assert out["statuses"] == ["completed", "crashed", "completed"] and out["turns"] == [0, 1, 2]
    assert out["resumed"][2] != [], out


def test_a_reply_killed_inside_an_approved_call_is_continued(tmp_path: Path) -> None:
    """The reply paused for a transfer, the approval ran it and the process died inside it before its effect: the saved
    state still has the call open (AgentScope wrote nothing since the pause), so the resume continues and meets the
    glue's in-flight record (``reconcile_required``), as the engine's resume does."""
    pay = {"id": "t1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 100}}
    script = [{"tool_calls": [pay]}, {"text": "Paid."}]
    driver = [{"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "t1"}, {"action": "resume"}]
    out = run(tmp_path, "paused", 4, script, driver, ({"point": "tool.kill_before_effect", "call_id": "t1"},))
    assert out["statuses"] == ["awaiting_approval", "crashed", "reconcile_required"], out
    assert out["resumed"][2] != [], out
