"""The agent under test: an AgentScope 2.x ``Agent`` with a ``Toolkit`` of ``FunctionTool``s and the permission system.

As AgentScope's documentation teaches it (docs.agentscope.io/v2/building-blocks/agent): the
scripted chat model, the fixture tools as ``FunctionTool``s at their defaults (``tools.py``), the
scenario's system prompt and the ``AgentState`` loaded from the session's file; the permission
context (mode ``DEFAULT``: every call of a tool that is not read-only asks the user) and every
config (``ReActConfig``, ``InjectionConfig``, ``ModelConfig``, ``ContextConfig``) at its default
unless ``options`` say otherwise (``contract`` mode's glue does).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentscope.agent import Agent
from agentscope.mcp import MCPClient
from agentscope.middleware import MiddlewareBase
from agentscope.state import AgentState
from agentscope.tool import ToolBase, Toolkit

from harness.column_side.fixtures.faults import FaultPlan
from harness.column_side.scripted_model import ScriptedModel
from harness.scenarios import Scenario

from .model import ScriptedChatModel, ToolNames
from .wire import wire_model

AGENT_NAME = "assistant"


def build_agent(
    scenario: Scenario, scratch: Path, state: AgentState, faults: FaultPlan, tools: list[ToolBase], middlewares: list[MiddlewareBase],
    *, model_url: str | None = None, mcps: list[MCPClient] | None = None, names: ToolNames | None = None,
    on_tools: Callable[[list[dict]], None] | None = None, **options: Any,
) -> Agent:
    """The agent over ``state`` with the scenario's scripted model (its model faults from ``faults``), ``tools`` and ``middlewares``;
    with ``model_url`` (wire mode), AgentScope's own OpenAI chat model on the runner's scripted server instead; with ``mcps``
    (mcp mode), the toolkit's tools from those connected MCP clients too, the model naming them by ``names`` and showing the
    tools it is given to ``on_tools``."""
    model = wire_model(model_url) if model_url else ScriptedChatModel(ScriptedModel.of(scenario, scratch, faults), names, on_tools)
    return Agent(
        name=AGENT_NAME,
        system_prompt=scenario.system_prompt or "",
        model=model,
        toolkit=Toolkit(tools=tools, mcps=mcps),
        middlewares=middlewares,
        state=state,
        **options,
    )
