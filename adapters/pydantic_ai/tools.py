"""The fixture tools as Pydantic AI's documentation teaches function tools: typed functions (the signature an author
writes, from the fixture schema) registered as ``Tool(function, takes_ctx=True, requires_approval=<high risk>)``;
Pydantic AI derives their schema and validator from it. ``RunContext.tool_call_id`` feeds the ledger (not glue).

A tool that acts for the session's user (``list_orders``) has no parameter naming the user: it reads the user from the
run's dependencies (the docs' "dependencies": ``Agent(deps_type=SessionUser)``, ``agent.run(..., deps=...)``, seen by a
tool as ``RunContext.deps`` and never by the model), and hands the body ``{"username": user}`` as the engine does."""

from __future__ import annotations

from dataclasses import dataclass
from inspect import Parameter, Signature
from typing import Any

from pydantic_ai import RunContext, Tool

from adapters.fixture_signature import needs_approval, parameters
from handwritten.canonical import canonical_json
from harness.column_side.fixtures.world import FixtureWorld
from harness.fixture_tools import FIXTURE_TOOLS

__all__ = ["SessionUser", "fixture_tools", "needs_approval"]


@dataclass(frozen=True)
class SessionUser:
    """The run's dependencies (``deps``): the session's user, for the tools that act for a user."""

    user: str


def fixture_tools(world: FixtureWorld, names: list[str]) -> list[Tool[SessionUser]]:
    """The named fixture tools; ``async`` functions, which Pydantic AI runs on its event loop one after another."""
    return [_tool(world, name) for name in names]


def _tool(world: FixtureWorld, name: str) -> Tool[SessionUser]:
    acts_for = FIXTURE_TOOLS[name].acts_for

    async def call(ctx: RunContext[SessionUser], **received: Any) -> str:
        args = {k: v for k, v in received.items() if v is not None}  # an omitted optional field is absent, not null
        if acts_for is not None:
            args[acts_for] = ctx.deps.user  # the user comes from the run's dependencies, never from the model
        world.enter(name, ctx.tool_call_id or "", args)
        return canonical_json(world.execute(name, ctx.tool_call_id or "", args))

    params = [Parameter("ctx", Parameter.POSITIONAL_OR_KEYWORD, annotation=RunContext[SessionUser]), *parameters(name)]
    call.__signature__ = Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in params} | {"return": str}
    return Tool(call, takes_ctx=True, name=name, description=FIXTURE_TOOLS[name].description, requires_approval=needs_approval(name))
