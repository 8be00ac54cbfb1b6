"""The contract glue's blocks (``adapters/glue_blocks.py``) as each column applies them to its framework's own objects
(its tools, hooks, middleware, saved state), seen through whole scenarios in contract mode:

- ``admit``: strict schema on the raw arguments, then policy, before anything else, a pause included;
- ``whole_turn``: a turn's calls run only once its last high-risk call is decided (in the model's order:
  ``test_batch_order.py``);
- ``run_once``: retries of a failure before any effect, one execution per key (a second delivery replays the stored
  result), an uncertain outcome stopped until an explicit reconcile (``settle``).

The reference engine keeps the same contract with its own code. The pieces each column wires differently are tested in
its own folder (``tests/<column>_column/in_env``)."""

from __future__ import annotations

import pytest
from conformance import RUN, Play, Played, approve, scenario, transfer

from harness.column_side.protocol import ColumnAdapter
from harness.scenarios import Fault, load_scenarios


def modes(column: ColumnAdapter) -> list[str]:
    return ["contract"]


NOTE = {"key": "k", "text": "t"}
TURN = [
    {"id": "a1", "name": "put_note", "arguments": {**NOTE, "priority": "2"}},  # "2" is not an integer: never coerced
    {"id": "d1", "name": "drop_database", "arguments": {"name": "prod"}},  # always denied
    {"id": "x1", "name": "transfer_funds", "arguments": {**transfer("x1", 5)["arguments"], "amount_cents": "5"}},  # invalid: never asks the human
    {"id": "b1", "name": "get_balance", "arguments": {"account": "ACC-1"}},
    {"id": "n1", "name": "put_note", "arguments": NOTE},  # its first attempt fails before any effect
    transfer("t1", 100),
    transfer("t2", 200),
]
ONE_TURN = scenario("one_turn", ("put_note", "drop_database", "transfer_funds", "get_balance"), [{"tool_calls": TURN}, {"text": "Done."}],
                    [RUN, approve("t1"), approve("t2")], (Fault("tool.raise_before_effect", call_id="n1"),))
# How a column answers a call its glue rejects (schema or policy): AgentScope answers every call its permission decision
# denies with its own denial, ``refused`` (adapters/agentscope/glue.py: the glue's rejection is PermissionBehavior.DENY).
REJECTED_AS = {"agentscope": "refused"}


@pytest.fixture(scope="module")
def one_turn(mode: str, play: Play) -> Played:
    return play(mode, ONE_TURN)


def test_schema_then_policy_answer_a_call_before_any_pause_and_it_never_enters_its_tool(one_turn: Played, column: ColumnAdapter) -> None:
    assert one_turn.pending[0] == ["t1", "t2"]  # x1 never reached the human
    assert sorted(one_turn.traced("schema_rejected")) == ["a1", "x1"] and {"d1", "t1", "t2"} <= set(one_turn.traced("call_admitted"))
    assert not {"a1", "d1", "x1"} & set(one_turn.counts("tool_entries")[-1])
    rejected = REJECTED_AS.get(column.name, "error")
    assert {c: one_turn.results[c] for c in ("a1", "d1", "x1")} == {"a1": [rejected], "d1": ["refused"], "x1": [rejected]}


def test_the_turn_runs_once_its_last_high_risk_call_is_decided(one_turn: Played) -> None:
    assert one_turn.statuses == ["awaiting_approval", "awaiting_approval", "completed"]
    assert one_turn.pending[1] == ["t2"]
    # nothing before the second approval, not even the read or the note; then each call once, the note's failed attempt again
    assert one_turn.counts("executor_entries") == [{}, {}, {"b1": 1, "n1": 2, "t1": 1, "t2": 1}]
    assert one_turn.counts("effects")[-1] == {"n1": 1, "t1": 1, "t2": 1}
    assert {c: one_turn.results[c] for c in ("b1", "n1", "t1", "t2")} == {c: ["ok"] for c in ("b1", "n1", "t1", "t2")}


def test_a_second_delivery_of_a_call_that_ran_replays_its_result(mode: str, play: Play) -> None:
    """scenarios/resume_same_state_twice.json: the paused state restored after the approved transfer ran, and approved
    again (a retried webhook): the framework runs the call again, the glue's record answers it."""
    played = play(mode, {s.id: s for s in load_scenarios()}["resume_same_state_twice"])
    assert played.statuses == ["awaiting_approval", "awaiting_approval", "completed", "awaiting_approval", "completed"]
    assert played.results == {"c1": ["ok", "replayed"]} and len(set(played.contents("c1"))) == 1
    assert played.counts("executor_entries")[-1] == played.counts("effects")[-1] == {"c1": 1}


UNCERTAIN = scenario("uncertain", ("transfer_funds",), [{"tool_calls": [transfer("t1", 100), transfer("t2", 200)]}, {"text": "Done."}],
                     [RUN, approve("t1"), approve("t2"), {"action": "reconcile", "call_id": "t1", "outcome": "confirmed"}],
                     (Fault("tool.timeout_after_effect", call_id="t1"),))
# The contract runs nothing of a turn after a call whose outcome is unknown until the reconcile (the engine's run stops
# there). These columns' contract glue lets the second transfer run before the reconcile all the same (their frameworks
# run a turn's calls side by side: LangGraph's ToolNode threads, which LangChain's create_agent uses; Pydantic AI's tool
# calls of a turn): a contract defect this suite found (the committed uncertain_then_second_transfer compares counts at
# the end, where they agree), not yet fixed in the adapters. The test fails for them, and says so until it is fixed.
RUN_BESIDE_AN_UNCERTAIN_CALL = {"langgraph", "langchain", "pydantic_ai"}


def test_an_uncertain_call_stops_the_run_until_a_reconcile_settles_it_without_running_it_again(
    mode: str, play: Play, column: ColumnAdapter, request: pytest.FixtureRequest
) -> None:
    if column.name in RUN_BESIDE_AN_UNCERTAIN_CALL:
        request.applymarker(pytest.mark.xfail(strict=True, reason="contract defect: the second transfer runs before the reconcile"))
    played = play(mode, UNCERTAIN)
    assert played.statuses == ["awaiting_approval", "awaiting_approval", "reconcile_required", "completed"]
    assert played.counts("executor_entries") == [{}, {}, {"t1": 1}, {"t1": 1, "t2": 1}]  # t2 waits for the reconcile; t1 confirmed, not run again
    assert played.results["t1"] == ["reconciled"] and played.traced("reconciled") == ["t1"]
