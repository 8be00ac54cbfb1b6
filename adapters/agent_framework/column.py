"""The ``agent_framework`` column: Microsoft Agent Framework ``Agent`` + ``@tool(approval_mode="always_require")`` +
``user_input_requests`` answered with ``to_function_approval_response`` + ``AgentSession.to_dict()`` saved after every
run (see MAPPING.md). Each driver step builds the agent afresh in its worker; the session reads everything else from
the scratch directory. Nothing races: a batch's calls are tasks on one event loop, and the fixture tools never await.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, cast

from agent_framework import Agent

from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.scripted_model import ScriptedModel
from harness.scenarios import Scenario

from ..column import FrameworkColumn, SessionContext
from ..mcp_endpoint import endpoint
from .mcp import mcp_middleware, mcp_tool
from .model import ScriptedChatClient
from .session import AFSession
from .tools import fixture_tools
from .wire import wire_client


class AgentFrameworkColumn(FrameworkColumn):
    """Agent Framework's own loop, approvals and session; contract glue from ``adapters.glue_blocks``."""

    name = "agent_framework"
    modes: ClassVar[tuple[str, ...]] = ("defaults", "contract", "wire", "mcp")
    approval_fields: ClassVar[dict[str, str]] = {
        "call": "agent_framework._types:Content id (the function_approval_response's request id)",
        "arguments": "agent_framework._types:Content function_call (the function_approval_response's call)",
        "session": "agent_framework._sessions:AgentSession state (the pending requests it recorded)",
        "single_use": "agent_framework._sessions:AgentSession state (the pending requests it recorded)",
        "authenticity": "agent_framework._types:Content id (the function_approval_response's request id)",
    }
    mechanisms: ClassVar[dict[str, str]] = {
        "loop": "agent_framework._tools:FunctionInvocationLayer._get_response_with_function_invocation",
        "tool_dispatch": "agent_framework._tools:_try_execute_function_call_groups",
        "message_assembly": "agent_framework._agents:RawAgent._prepare_run_context",
        "approval": "agent_framework._tools:_resolve_approval_responses",
        "persistence": "agent_framework._sessions:AgentSession.to_dict",
    }
    constants: ClassVar[dict[str, str]] = {"step_limit": "agent_framework._tools:DEFAULT_MAX_ITERATIONS",
                                           "error_limit": "agent_framework._tools:DEFAULT_MAX_CONSECUTIVE_ERRORS_PER_REQUEST"}

    defaults_never_reaches: ClassVar[dict[str, str]] = {
        "session.py:open_calls": "a session with no model turn yet: contract's glue saves the session before every model call, so a run killed "
                                 "before the first model turn leaves the prompt (scenarios/snapshot_after_kill_before_first_turn.json); "
                                 "defaults saves it when a run returns, so that run leaves nothing and its resume is refused first",
    }

    def prepare(self, mode: str) -> None:
        """Import what a run imports on first use once in the column process: forked workers inherit it."""
        from . import glue  # noqa: F401

    def built_constants(self, scenario: Scenario, scratch: Path) -> dict[str, dict[str, Any]]:
        """What its tool dispatch does, measured on a small agent in this environment (``constants.py``)."""
        from .constants import measured

        return measured()

    def open_session(self, context: SessionContext) -> AFSession:
        scenario, world, contract = context.scenario, context.world, context.contract
        statuses: dict[str, str] = {}
        url = context.request.model_url
        client = wire_client(url) if url else ScriptedChatClient(ScriptedModel.of(scenario, context.scratch, world.faults))
        tools = fixture_tools(world, list(scenario.tools), every=contract is not None, statuses=statuses)
        if contract is not None:
            # contract glue: start
            from .glue import GlueSession

            glued = GlueSession(context, statuses)
            glued.agent = Agent(client=client, instructions=scenario.system_prompt, tools=tools, middleware=glued.middleware(),
                                require_per_service_call_history_persistence=True)
            return glued
            # contract glue: end
        session = AFSession(context, statuses)
        if context.mode == "mcp":  # every tool from the runner's MCP server, through the framework's own MCP client
            at = endpoint(scenario.id, context.request)
            session.agent = Agent(client=client, instructions=scenario.system_prompt, tools=mcp_tool(at),
                                  middleware=[*session.middleware(), *mcp_middleware(at, context.trace, statuses)])
            return session
        session.agent = Agent(client=client, instructions=scenario.system_prompt, tools=tools, middleware=session.middleware())
        return session

    def tool_schemas(self, names: list[str], mode: str) -> dict[str, dict[str, Any]]:
        """Each tool's ``parameters()`` (the JSON schema the framework sends the model), as ``defaults`` and ``wire``
        build the tools; built on no world: the tools never run."""
        self.check_mode(mode)
        return {t.name: dict(t.parameters()) for t in fixture_tools(cast(FixtureWorld, None), names)}
