"""The fixture tools as ADK's documentation teaches function tools: typed ``async`` functions (the signature an author
writes, from the fixture schema) wrapped as ``FunctionTool(function, require_confirmation=<high risk>)``; ADK derives
their declaration from the signature. ``ToolContext.function_call_id`` feeds the ledger (not glue).

A tool that acts for the session's user (``list_orders``) has no parameter naming the user: it reads the user from the
session's state (the docs' "State": ``create_session(state=...)``, seen by a tool as ``tool_context.state`` and never by
the model), and hands the body ``{"username": user}`` as the engine does."""

from __future__ import annotations

from inspect import Parameter
from typing import Any

from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.tool_context import ToolContext

from adapters.fixture_signature import needs_approval, parameters, typed
from harness.column_side.fixtures.world import FixtureWorld
from harness.fixture_tools import FIXTURE_TOOLS

USER_KEY = "user"  # the session state's key for the session's user
__all__ = ["USER_KEY", "fixture_tools", "needs_approval"]


def fixture_tools(world: FixtureWorld, names: list[str], confirm: bool = True, statuses: dict[str, str] | None = None) -> list[FunctionTool]:
    """The named fixture tools; ``async`` functions, which ADK runs on its event loop. ``confirm=False``: no tool asks for
    ADK's confirmation (the contract's glue asks instead). ``statuses`` gets ``ok`` for each call whose body returned: any
    other answer to a call is ADK's own (a refusal, a missing argument, an unknown tool)."""
    return [FunctionTool(_function(world, name, {} if statuses is None else statuses), require_confirmation=confirm and needs_approval(name))
            for name in names]


def _function(world: FixtureWorld, name: str, statuses: dict[str, str]) -> Any:
    acts_for = FIXTURE_TOOLS[name].acts_for

    async def call(tool_context: ToolContext, **received: Any) -> Any:
        args = {k: v for k, v in received.items() if v is not None}  # an omitted optional field is absent, not null
        if acts_for is not None:
            args[acts_for] = tool_context.state[USER_KEY]  # the user comes from the session's state, never from the model
        call_id = tool_context.function_call_id or ""
        world.enter(name, call_id, args)
        output = world.execute(name, call_id, args)
        statuses[call_id] = "ok"
        return output

    context = Parameter("tool_context", Parameter.KEYWORD_ONLY, annotation=ToolContext)
    return typed(call, name, [*parameters(name), context])
