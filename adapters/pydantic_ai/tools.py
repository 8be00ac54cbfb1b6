"""The fixture tools as Pydantic AI's documentation teaches function tools: typed functions (the signature an author
writes, from the fixture schema) registered as ``Tool(function, takes_ctx=True, requires_approval=<high risk>)``;
Pydantic AI derives their schema and validator from it. ``RunContext.tool_call_id`` feeds the ledger (not glue)."""

from __future__ import annotations

from inspect import Parameter, Signature
from typing import Any, Literal

from pydantic_ai import RunContext, Tool

from handwritten.canonical import canonical_json
from handwritten.tools import RiskClass
from harness.column_side.world import FixtureWorld
from harness.fixture_tools import FIXTURE_TOOLS

_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": int | float, "boolean": bool}


def needs_approval(tool: str) -> bool:
    return FIXTURE_TOOLS[tool].risk is RiskClass.HIGH_RISK


def fixture_tools(world: FixtureWorld, names: list[str]) -> list[Tool[None]]:
    """The named fixture tools; ``async`` functions, which Pydantic AI runs on its event loop one after another."""
    return [_tool(world, name) for name in names]


def _tool(world: FixtureWorld, name: str) -> Tool[None]:
    async def call(ctx: RunContext[None], **received: Any) -> str:
        args = {k: v for k, v in received.items() if v is not None}  # an omitted optional field is absent, not null
        world.enter(name, ctx.tool_call_id or "", args)
        return canonical_json(world.execute(name, ctx.tool_call_id or "", args))

    schema = FIXTURE_TOOLS[name].schema
    params = [Parameter("ctx", Parameter.POSITIONAL_OR_KEYWORD, annotation=RunContext[None])]
    for field, prop in schema["properties"].items():
        kind = Literal[tuple(prop["enum"])] if "enum" in prop else _TYPES[prop["type"]]
        required = field in schema["required"]
        params.append(Parameter(field, Parameter.KEYWORD_ONLY, annotation=kind if required else kind | None, default=Parameter.empty if required else None))
    call.__signature__ = Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in params} | {"return": str}
    return Tool(call, takes_ctx=True, name=name, description=FIXTURE_TOOLS[name].description, requires_approval=needs_approval(name))
