"""What the OpenAI Agents SDK column records when a run does not return: the tool results the SDK delivered before it
raised or before the process was killed, and a paused run whose saved state the SDK refuses to restore. Each scenario
is played step by step through the harness's driver (worker processes, a private ledger), as test_oa_sessions.py does."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest

from adapters.openai_agents.column import OpenAIAgentsColumn
from harness.column_side.driver import run_scenario
from harness.records import ScenarioRun
from harness.scenarios import Fault, Scenario

MODES = ["defaults", "contract"]  # wire needs the runner's scripted server: tests/openai_agents_column/test_openai_agents_results_end_to_end.py


def play(tmp: Path, mode: str, tools: tuple[str, ...], script: list[Any], driver: list[Any], faults: tuple[Fault, ...] = ()) -> ScenarioRun:
    scenario = Scenario(
        id="probe", file="probe.json", description="", covers=(), tools=tools, session_id="sess-probe",
        user_input="Please help.", system_prompt=None, max_steps=8, model_script=tuple(script), driver=tuple(driver), faults=faults,
    )  # fmt: skip
    column = OpenAIAgentsColumn()
    column.prepare(mode)
    return run_scenario(scenario, partial(column.perform, mode=mode), tmp / mode)


def results(run: ScenarioRun, mode: str) -> list[list[tuple[str, str]]]:
    """Per driver step, the tool results the column's trace says reached the model: (call id, content)."""
    return [[(r["call_id"], r["content"]) for r in f.results] for f in OpenAIAgentsColumn().facts(run, mode)]


def note(cid: str, text: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": cid, "name": "put_note", "arguments": {"key": "followup", "text": text}}]}


@pytest.mark.parametrize("mode", MODES)
def test_a_result_delivered_before_the_sdk_raises_is_traced(tmp_path: Path, mode: str) -> None:
    """scenarios/reused_call_id_other_args.json: c1 runs in turn 0, and its output is in the model's next request; turn 1
    sends c1 again with other arguments and the SDK raises ModelBehaviorError. c1's first result was delivered."""
    run = play(tmp_path, mode, ("put_note",), [note("c1", "Monday"), note("c1", "Tuesday"), {"text": "Saved."}],
               [{"action": "run", "event_id": "e1"}])
    assert [(s.status, s.raised) for s in run.steps] == [("error", "agents.exceptions.ModelBehaviorError")]
    assert results(run, mode) == [[("c1", '{"key":"followup","stored":true}')]]


@pytest.mark.parametrize("mode", MODES)
def test_a_rejection_is_traced_when_a_kill_lands_before_the_next_model_turn(tmp_path: Path, mode: str) -> None:
    """A transfer is rejected; the rejection is the call's output, saved by the SDK when the turn ends; the process dies
    as the model is asked for the next turn. The rejection reached the model's input before the kill: it is traced in
    the step that was killed."""
    transfer = {"id": "c1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 100}}
    run = play(tmp_path, mode, ("transfer_funds",), [{"tool_calls": [transfer]}, {"text": "Not moved."}],
               [{"action": "run", "event_id": "e1"}, {"action": "reject", "call_id": "c1", "reason": "not today"}, {"action": "resume"}],
               (Fault("model.kill_before_turn", turn=1),))
    assert [s.killed for s in run.steps] == [False, True, False]
    assert results(run, mode)[:2] == [[], [("c1", "not today")]]


@pytest.mark.parametrize("mode", MODES)
def test_results_of_turns_saved_before_a_kill_inside_a_tool_are_traced(tmp_path: Path, mode: str) -> None:
    """c1 runs in turn 0 (saved with the turn); the process dies inside c2's executor in turn 1: c1's result was
    delivered (the model's turn-1 request carried it), c2 never answered."""
    weather = {"tool_calls": [{"id": "c2", "name": "get_weather", "arguments": {"city": "Paris"}}]}
    run = play(tmp_path, mode, ("put_note", "get_weather"), [note("c1", "Monday"), weather, {"text": "Done."}],
               [{"action": "run", "event_id": "e1"}], (Fault("tool.kill_before_effect", call_id="c2"),))
    assert [s.killed for s in run.steps] == [True]
    assert results(run, mode) == [[("c1", '{"key":"followup","stored":true}')]]


def test_a_pause_whose_saved_state_the_sdk_refuses_to_restore_is_reported_by_the_step_that_paused(tmp_path: Path) -> None:
    """Found by scripts/explore.py (seed 11, gen_s11_0025). Turn 0 runs c1; turn 1 sends c1 again with other arguments
    beside c2 and a high-risk c3: the run raises ModelBehaviorError. A resume continues the session's conversation (a
    new run, which does not know the earlier c1): c1 and c2 run, c3 pauses the run and its state is saved. The SDK's
    ``RunState.from_json`` refuses that state (the session's earlier c1 is an occurrence of the run's completed c1, with
    other arguments): the step that paused reports the pause, the next step that restores the state meets the refusal.
    In ``defaults``: which calls of a turn with a high-risk call run before the pause is the contract glue's to decide."""
    calc = {"id": "c1", "name": "calculator", "arguments": {"a": 5, "b": 2, "op": "div"}}
    again = {"id": "c1", "name": "calculator", "arguments": {"a": 68, "b": 2, "op": "mul"}}
    page = {"id": "c2", "name": "fetch_page", "arguments": {"url": "https://shop.example/shipping"}}
    email = {"id": "c3", "name": "send_email", "arguments": {"to": "bob@example.test", "subject": "Hello", "body": "See you."}}
    run = play(tmp_path, "defaults", ("calculator", "fetch_page", "send_email"),
               [{"tool_calls": [calc]}, {"tool_calls": [again, page, email]}, {"text": "Done."}],
               [{"action": "run", "event_id": "e1"}, {"action": "resume"}, {"action": "resume"}])
    assert [(s.status, s.raised) for s in run.steps] == [
        ("error", "agents.exceptions.ModelBehaviorError"),
        ("awaiting_approval", None),
        ("error", "agents.exceptions.UserError"),
    ]
    assert [p["call_id"] for p in run.steps[1].pending] == ["c3"]
    assert "RunState completed tool invocation does not match a restored tool call and output" in (run.steps[2].error or "")
