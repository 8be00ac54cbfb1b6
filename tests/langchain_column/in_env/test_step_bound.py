"""The contract's step bound on ``create_agent`` counts the model turns since the last user input from the saved
conversation, so it holds across a resume (LangChain's ``ModelCallLimitMiddleware`` run limit starts again at
every invocation, a resume included); ``defaults`` has no bound."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from adapters.langchain.column import LangChainColumn
from harness.column_side.column_main import run_raw
from harness.scenarios import SCENARIO_DIR, Fault, Scenario, load_scenario


def weather(call_id: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "get_weather", "arguments": {"city": "Paris"}}]}


TRANSFER = {"tool_calls": [{"id": "c2", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 5}}]}
AFTER_APPROVAL = dataclasses.replace(
    load_scenario(SCENARIO_DIR / "high_risk_approved.json"), tools=("get_weather", "transfer_funds"), max_steps=2,
    model_script=(weather("c1"), TRANSFER, weather("c3"), weather("c4"), {"text": "done"}),
    driver=({"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "c2"}))
AFTER_KILL = dataclasses.replace(AFTER_APPROVAL, max_steps=3, faults=(Fault("model.kill_before_turn", turn=2),),
                                 driver=({"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "c2"}, {"action": "resume"}))


def run(tmp_path: Path, mode: str, scenario: Scenario) -> dict[str, Any]:
    """``scenario`` through the column in ``mode``: the step statuses, the model turns taken, the effects."""
    record = run_raw(LangChainColumn(), scenario, mode, tmp_path / mode)
    return {
        "statuses": [s["session_status"] for s in record["steps"]],
        "turns": sorted(int(t) for t in record["model"]["calls_per_turn"]),
        "effects": {c: n["effects"] for c, n in record["steps"][-1]["ledger"].items() if n["effects"]},
    }


def test_the_contract_step_bound_holds_across_an_approvals_resume(tmp_path: Path) -> None:
    # max_steps 2: turns 0 and 1 before the approval pause; the approved transfer runs, and the model gets no turn 2
    assert run(tmp_path, "contract", AFTER_APPROVAL) == {"statuses": ["awaiting_approval", "stopped_max_steps"], "turns": [0, 1], "effects": {"c2": 1}}


def test_the_contract_step_bound_holds_across_a_kills_resume(tmp_path: Path) -> None:
    # max_steps 3: killed before turn 2; the resume gives the model turn 2 (the third) and no more
    killed = run(tmp_path, "contract", AFTER_KILL)
    assert killed["statuses"] == ["awaiting_approval", "crashed", "stopped_max_steps"] and killed["turns"] == [0, 1, 2]
    assert killed["effects"] == {"c2": 1}


def test_defaults_has_no_step_bound(tmp_path: Path) -> None:
    """create_agent counts no model turns: the script runs out. (The defaults kill races the asynchronous checkpoint
    write, a schedule each: not this test's point.)"""
    runs = run(tmp_path, "defaults", AFTER_APPROVAL)
    assert runs["statuses"] == ["awaiting_approval", "completed"]
    assert runs["turns"] == [0, 1, 2, 3, 4]


def test_the_step_limit_is_read_from_the_config_create_agent_binds(tmp_path: Path) -> None:
    """No name holds create_agent's recursion limit: the column reads it from the built agent, and it is the one a bare
    create_agent binds too (the scenario's build adds nothing of its own)."""
    from langchain.agents import create_agent

    from adapters.scripted_chat_model import ScriptedChatModel
    from harness.column_side.scripted_model import ScriptedModel
    from harness.column_side.world import FixtureWorld

    constants = LangChainColumn().built_constants(AFTER_APPROVAL, tmp_path)
    bare = create_agent(ScriptedChatModel(scripted=ScriptedModel.of(AFTER_APPROVAL, tmp_path, FixtureWorld(tmp_path, [], may_kill=False).faults)), tools=[])
    assert constants["step_limit"]["value"] == bare.config["recursion_limit"]
    assert isinstance(constants["step_limit"]["value"], int) and "create_agent" in constants["step_limit"]["ref"]
