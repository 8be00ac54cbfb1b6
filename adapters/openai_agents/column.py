"""The ``openai_agents`` column: OpenAI Agents SDK ``Agent`` + ``Runner`` + ``needs_approval`` + ``RunState``.

Every driver step runs in a worker forked from the column process (which imported the SDK, tracing
off) and builds the agent afresh: the scripted model behind the SDK's ``Model`` interface, the fixture
tools as ``@function_tool`` functions (``needs_approval=True`` on the high-risk ones), and in
``contract`` mode the glue (``glue.py``) on each tool's approval callable and invocation. The session
(``session.py``) reads only what the SDK saved. See MAPPING.md for the documentation behind each choice.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, ClassVar, cast

import agents
from agents import Agent, Tool
from agents.mcp import MCPServer

from adapters.column import FrameworkColumn, SessionContext
from adapters.mcp_endpoint import endpoint
from harness.column_side.fixtures.sibling_order import sibling_orders
from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.scripted_model import ScriptedModel
from harness.records import ScenarioRun
from harness.scenarios import Scenario

from .glue import Glue
from .glue_session import ContractSession
from .mcp import StepConnection, mcp_server, offered_once
from .model import ScriptedAgentsModel
from .session import STATE, AgentSession
from .tools import fixture_tools
from .wire import wire_model


class OpenAIAgentsColumn(FrameworkColumn):
    """The OpenAI Agents SDK: its ``Runner`` loop, ``needs_approval`` pauses decided per call, the ``RunState``
    JSON and a ``SQLiteSession`` as its memory."""

    name = "openai_agents"
    modes: ClassVar[tuple[str, ...]] = ("defaults", "contract", "wire", "mcp")
    mechanisms = {
        "loop": "agents.run:AgentRunner._run_impl",
        "tool_dispatch": "agents.run_internal.tool_execution:execute_function_tool_calls",
        "message_assembly": "agents.run_internal.items:prepare_model_input_items",
        "approval": "agents.run_internal.tool_execution:resolve_approval_status",
        "persistence": "agents.run_state:RunState.to_json",
    }
    constants = {"step_limit": "agents.run_config:DEFAULT_MAX_TURNS"}
    approval_fields = {"call": "agents.items:ToolApprovalItem raw_item.call_id", "arguments": "agents.items:ToolApprovalItem raw_item.arguments",
                       "single_use": "agents.items:ToolApprovalItem raw_item.call_id"}

    def prepare(self, mode: str) -> None:
        """Import the SDK (and openai) once in the column process, tracing off: forked workers inherit both."""
        import openai  # noqa: F401

        agents.set_tracing_disabled(True)

    def schedules(self, scenario: Scenario, mode: str) -> tuple[str, ...]:
        """The SDK runs a turn's function tools at the same time (``asyncio.to_thread``), so in ``defaults`` a kill
        inside one call races its siblings: such a scenario runs once per sibling order
        (``harness.column_side.fixtures.sibling_order``), forced where the tool enters the world. The contract glue runs a
        turn's calls one at a time (``glue_session.one_call_at_a_time``): no sibling of a killed call has started,
        so there is nothing to order. Nothing else races: the SDK writes nothing in the background."""
        return sibling_orders(scenario) if mode != "contract" else ()

    def open_session(self, context: SessionContext) -> AgentSession | Awaitable[AgentSession]:
        agents.set_tracing_disabled(True)  # inherited from prepare() in the column; set again for a direct caller
        if context.mode == "mcp":  # every tool from the runner's MCP server, through the SDK's client (mcp.py)
            return mcp_session(context)
        if context.contract is None:
            return AgentSession(build_agent(context, fixture_tools(context.world, list(context.scenario.tools))), context)
        # contract glue: start
        glue = Glue(context.contract)
        return ContractSession(build_agent(context, glue.tools(context.world, list(context.scenario.tools))), context, glue)
        # contract glue: end

    def tool_schemas(self, names: list[str], mode: str) -> dict[str, dict[str, Any]]:
        """Each ``@function_tool`` object's ``params_json_schema``, as ``defaults`` and ``wire`` build the tools (the schema
        the SDK sends as the tool's parameters); built on no world: the schema is read, the tools never run."""
        self.check_mode(mode)
        return {t.name: dict(t.params_json_schema) for t in fixture_tools(cast(FixtureWorld, None), names)}

    def detail(self, run: ScenarioRun, mode: str) -> dict[str, Any]:
        """The saved RunState and the session's history at the end, and the reasons behind this run's differences."""
        self.check_mode(mode)
        return {
            "run_state": run_state_detail(run.scratch / STATE),
            "session_items": session_items(run.scratch / "session.sqlite"),
        }


async def mcp_session(context: SessionContext) -> AgentSession:
    """``defaults``' session on an agent whose every tool is the runner's MCP server's: ``tools=[]``,
    ``mcp_servers=[server]``, the server connected for the step (``async with server:``, left by the session's close)."""
    served = endpoint(context.scenario.id, context.request)
    connection = StepConnection(mcp_server(served))
    await connection.open()
    return AgentSession(build_agent(context, [], [connection.server], offered_once(served, context.trace.emit)), context, connection)


def build_agent(context: SessionContext, tools: Sequence[Tool], mcp_servers: Sequence[MCPServer] = (),
                offered: Callable[[Sequence[Any]], None] | None = None) -> Agent[Any]:
    """The agent as the docs build one with a custom model: the model object passed explicitly (an agent without
    one would default to a hosted model), the tools (or, in ``mcp``, none and the MCP server), the scenario's
    instructions; every other setting the SDK's."""
    scenario = context.scenario
    url = context.request.model_url  # wire mode: the SDK's default model on the runner's scripted server
    model = wire_model(url) if url else ScriptedAgentsModel(ScriptedModel.of(scenario, context.scratch, context.world.faults), offered)
    return Agent(name="support", instructions=scenario.system_prompt, model=model, tools=list(tools), mcp_servers=list(mcp_servers))


def run_state_detail(path: Path) -> dict[str, Any] | None:
    """The saved RunState at the end, if a run is paused: its schema version, turn count and open approvals."""
    if not path.exists():
        return None
    state = json.loads(path.read_text(encoding="utf-8"))
    data = (state.get("current_step") or {}).get("data") or {}
    interruptions = [i.get("raw_item", i) for i in data.get("interruptions", [])]
    return {
        "schema_version": state["$schemaVersion"],
        "current_turn": state["current_turn"],
        "max_turns": state["max_turns"],
        "interruptions": sorted(i["call_id"] for i in interruptions),
    }


def session_items(path: Path) -> list[str]:
    """The SQLiteSession's items at the end, each as ``type:call id`` (or ``message:role``)."""
    if not path.exists():
        return []
    with closing(sqlite3.connect(path)) as db:
        rows = db.execute("SELECT message_data FROM agent_messages ORDER BY id").fetchall()
    items = [json.loads(row[0]) for row in rows]
    return [f"{i.get('type')}:{i['call_id']}" if "call_id" in i else f"{i.get('type', 'message')}:{i.get('role')}" for i in items]
