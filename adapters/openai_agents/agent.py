"""The agent under test: an ``Agent`` with the scripted model, the fixture tools and the scenario's instructions.

``defaults`` builds it as the SDK's documentation teaches human-in-the-loop: the model
object passed explicitly (an agent without one would default to a hosted model),
``@function_tool`` tools with ``needs_approval=True`` on the high-risk ones and every
other setting the SDK's default. ``contract`` builds the same agent with the glue's
``needs_approval`` callables and its guard around each tool's invocation
(``failure_error_function=None`` so a tool error reaches the glue instead of being
turned into a message first).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents import Agent

from harness.scenarios import Scenario
from harness.scripted_model import ScriptedModel
from harness.world import FixtureWorld

from .glue import Contract
from .model import ScriptedAgentsModel
from .tools import fixture_tools


def build_agent(scenario: Scenario, world: FixtureWorld, scratch: Path, contract: Contract | None = None) -> Agent[Any]:
    """The agent; ``contract`` (the glue) is None in ``defaults``."""
    model = ScriptedAgentsModel(
        ScriptedModel(
            scenario.model_script,
            user_inputs=scenario.user_inputs,
            system_prompt=scenario.system_prompt,
            log_path=scratch / "model_log.jsonl",
            faults=world.faults,
        )
    )
    tools = fixture_tools(world, list(scenario.tools))
    # contract glue: start
    if contract is not None:
        tools = [contract.guard(t) for t in fixture_tools(world, list(scenario.tools), contract.needs_approval, failure_error_function=None)]
    # contract glue: end
    return Agent(name="support", instructions=scenario.system_prompt, model=model, tools=tools)
