"""The agent under test: ``langchain.agents.create_agent`` with human-in-the-loop and a SQLite checkpointer.

``defaults`` builds it as LangChain's documentation teaches approval: the scripted chat
model, the fixture tools under ``@tool``, the scenario's system prompt, a
``SqliteSaver`` on a file in the scratch directory and ``HumanInTheLoopMiddleware``
gating the high-risk tools; every other setting is the default (MAPPING.md cites the
pages). ``contract`` is the same agent plus the glue's middleware (``glue.py``), which
also carries the scenario's ``max_steps``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, HumanInTheLoopMiddleware
from langgraph.checkpoint.sqlite import SqliteSaver

from adapters import checkpoint_schedule
from adapters.langchain_tools import SessionUser, fixture_tools
from adapters.scripted_chat_model import ScriptedChatModel
from adapters.wire_chat_openai import wire_model
from handwritten.tools import RiskClass
from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.scripted_model import ScriptedModel
from harness.fixture_tools import FIXTURE_TOOLS
from harness.scenarios import Scenario

CHECKPOINTS = "checkpoints.sqlite"


def checkpointer(scratch: Path, schedule: str | None = None, faults: Any = None, scenario: Scenario | None = None) -> SqliteSaver:
    """The thread's checkpoints, in a file: a fresh process resumes from what is on disk.

    LangGraph writes checkpoints from a background thread by default (asynchronous
    durability), hence a connection usable across threads. Under a ``schedule`` the saver
    forces the order of those writes against a kill (``adapters/checkpoint_schedule.py``), and of the ``scenario``'s
    calls that run beside the killed one."""
    connection = sqlite3.connect(str(scratch / CHECKPOINTS), check_same_thread=False)
    return checkpoint_schedule.checkpointer(connection, schedule, faults, scenario)


def gated_tools(scenario: Scenario) -> list[str]:
    """The scenario's high-risk tools: the ones the human reviews."""
    return [name for name in scenario.tools if FIXTURE_TOOLS[name].risk is RiskClass.HIGH_RISK]


def build_agent(
    scenario: Scenario, world: FixtureWorld, scratch: Path, saver: Any, glue: Any = None, model_url: str | None = None, tools: list[Any] | None = None
) -> Any:
    """The compiled agent; ``glue`` (the contract's middleware, ``glue.ContractMiddleware``) is None in ``defaults``; with
    ``model_url`` (wire mode) the model is LangChain's ``ChatOpenAI`` on the runner's scripted server; ``tools`` (mcp
    mode: the MCP client's, ``mcp.mcp_tools``) replace the fixture tools."""
    model = wire_model(model_url) if model_url else ScriptedChatModel(scripted=ScriptedModel.of(scenario, scratch, world.faults))
    interrupt_on: dict[str, Any] = {name: True for name in gated_tools(scenario)}
    middleware: list[AgentMiddleware] = []
    if glue is not None:
        # contract glue: start
        interrupt_on = {name: glue.review for name in interrupt_on}  # ask only about calls that passed schema and policy
        middleware = [glue]  # after HITL: create_agent chains after_model hooks last to first, so the glue's runs first
        # contract glue: end
    return create_agent(
        model,
        tools=fixture_tools(world, list(scenario.tools)) if tools is None else tools,
        system_prompt=scenario.system_prompt,
        middleware=[HumanInTheLoopMiddleware(interrupt_on=interrupt_on), *middleware],
        checkpointer=saver,
        context_schema=SessionUser,  # the runtime context every stream passes (``run_context``): the session's user
    )


def run_context(scenario: Scenario) -> dict[str, Any]:
    """The ``stream`` option that hands the run its runtime context: the session's user, read by the tools that act for one."""
    return {"context": SessionUser(scenario.user)}
