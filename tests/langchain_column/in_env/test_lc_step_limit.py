"""``create_agent``'s own step bound, which ``defaults`` runs with: it counts no model turns, and its recursion limit is read
from the agent it builds. The contract's bound across a resume is the conformance suite's (``tests/column_conformance``:
the glue counts the turns from the saved conversation, where LangChain's ``ModelCallLimitMiddleware`` run limit would
start again at every invocation, a resume included)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from adapters.langchain.column import LangChainColumn
from harness.column_side.column_main import run_raw
from harness.scenarios import SCENARIO_DIR, Scenario, load_scenario


def weather(call_id: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "get_weather", "arguments": {"city": "Paris"}}]}


TRANSFER = {"tool_calls": [{"id": "c2", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 5}}]}
AFTER_APPROVAL = dataclasses.replace(
    load_scenario(SCENARIO_DIR / "high_risk_approved.json"), tools=("get_weather", "transfer_funds"), max_steps=2,
    model_script=(weather("c1"), TRANSFER, weather("c3"), weather("c4"), {"text": "done"}),
    driver=({"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "c2"}))


def run(tmp_path: Path, mode: str, scenario: Scenario) -> dict[str, Any]:
    """``scenario`` through the column in ``mode``: the step statuses, the model turns taken, the effects."""
    record = run_raw(LangChainColumn(), scenario, mode, tmp_path / mode)
    return {
        "statuses": [s["session_status"] for s in record["steps"]],
        "turns": sorted(int(t) for t in record["model"]["calls_per_turn"]),
        "effects": {c: n["effects"] for c, n in record["steps"][-1]["ledger"].items() if n["effects"]},
    }


def test_defaults_has_no_step_bound(tmp_path: Path) -> None:
    """create_agent counts no model turns: after the approval the model gets every turn the script has."""
    runs = run(tmp_path, "defaults", AFTER_APPROVAL)
    assert runs["statuses"] == ["awaiting_approval", "completed"]
    assert runs["turns"] == [0, 1, 2, 3, 4]


def test_the_step_limit_is_read_from_the_config_create_agent_binds(tmp_path: Path) -> None:
    """No name holds create_agent's recursion limit: the column reads it from the built agent, and it is the one a bare
    create_agent binds too (the scenario's build adds nothing of its own)."""
    from langchain.agents import create_agent

    from adapters.scripted_chat_model import ScriptedChatModel
    from harness.column_side.fixtures.world import FixtureWorld
    from harness.column_side.scripted_model import ScriptedModel

    constants = LangChainColumn().built_constants(AFTER_APPROVAL, tmp_path)
    bare = create_agent(ScriptedChatModel(scripted=ScriptedModel.of(AFTER_APPROVAL, tmp_path, FixtureWorld(tmp_path, [], may_kill=False).faults)), tools=[])
    assert constants["step_limit"]["value"] == bare.config["recursion_limit"]
    assert isinstance(constants["step_limit"]["value"], int) and "create_agent" in constants["step_limit"]["ref"]
