"""The fixture tools as Agent Framework's documentation teaches function tools: typed ``async`` functions (the
signature an author writes, from the fixture schema: ``adapters/fixture_signature.py``) made tools with
``tool(function, approval_mode=...)`` (the ``@tool`` decorator called on the function), ``"always_require"`` for the
high-risk ones; the framework derives the schema the model sees from the signature. ``async`` so that a turn's calls run
as tasks on the run's event loop, one after another (a plain function would run in a worker thread,
``asyncio.to_thread``, and the turn's calls would race). A tool that declares a ``FunctionInvocationContext``
parameter gets the invocation's context, which the framework keeps out of that schema: its ``metadata["call_id"]``
feeds the ledger (not glue).

A tool that acts for the session's user (``list_orders``) has no parameter naming the user: it reads the user from the
run's ``function_invocation_kwargs`` (the docs' runtime context for "values that only tools should see", seen by a tool
as ``ctx.kwargs`` and never by the model), and hands the body ``{"username": user}`` as the engine does."""

from __future__ import annotations

from inspect import Parameter
from typing import Any

from agent_framework import FunctionInvocationContext, FunctionTool, tool

from adapters.fixture_signature import needs_approval, parameters, typed
from harness.column_side.fixtures.world import FixtureWorld
from harness.fixture_tools import FIXTURE_TOOLS

USER_KEY = "user"  # the run's function_invocation_kwargs key for the session's user
__all__ = ["USER_KEY", "fixture_tools", "needs_approval"]


def fixture_tools(world: FixtureWorld, names: list[str], every: bool = False, statuses: dict[str, str] | None = None) -> list[FunctionTool]:
    """The named fixture tools. ``every``: every tool asks for the framework's approval (the contract's glue decides who
    answers). ``statuses`` gets ``ok`` for each call whose body returned: any other answer to a call is the framework's
    own (a rejection, invalid arguments, an unknown tool)."""
    return [tool(_function(world, name, {} if statuses is None else statuses), name=name, description=FIXTURE_TOOLS[name].description,
                 approval_mode="always_require" if every or needs_approval(name) else "never_require") for name in names]


def _function(world: FixtureWorld, name: str, statuses: dict[str, str]) -> Any:
    acts_for = FIXTURE_TOOLS[name].acts_for

    async def call(ctx: FunctionInvocationContext, **received: Any) -> Any:
        args = {k: v for k, v in received.items() if v is not None}  # an omitted optional field is absent, not null
        if acts_for is not None:
            args[acts_for] = ctx.kwargs[USER_KEY]  # the user comes from the run's context, never from the model
        call_id = str(ctx.metadata["call_id"])
        world.enter(name, call_id, args)
        output = world.execute(name, call_id, args)
        statuses[call_id] = "ok"
        return output

    context = Parameter("ctx", Parameter.POSITIONAL_OR_KEYWORD, annotation=FunctionInvocationContext)
    return typed(call, name, [context, *parameters(name)])
