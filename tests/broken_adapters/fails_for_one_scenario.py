"""Test-only broken column: the hand-written engine behind a tool factory that lacks one tool (``drop_database``), as
a framework column's factory lacked a tool another scenario needed. The factory raises ``KeyError`` wherever the
column builds that scenario's tools: in a step's worker, in the column process when it reads the column's ``detail``
(as the LangChain columns rebuild their agent there) and when it builds the agent a framework constant is read from
(``built_constants``, for the first scenario the column plays). Every other scenario is measured as usual."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from adapters.handwritten.column import HandwrittenColumn
from handwritten.tools import ToolSpec
from harness.column_side.fixtures.world import FixtureWorld

LACKING = "drop_database"


def tool_factory(world: FixtureWorld, names: list[str]) -> list[ToolSpec]:
    """The fixture tools by name, from a table that lacks ``LACKING``."""
    table = {spec.name: spec for spec in world.tool_specs([n for n in names if n != LACKING])}
    return [table[name] for name in names]


class Column(HandwrittenColumn):
    name = "fails_for_one_scenario"

    def tools(self, scenario: Any, scratch: Path, request: Any, world: FixtureWorld) -> AbstractContextManager[list[ToolSpec]]:
        return nullcontext(tool_factory(world, list(scenario.tools)))

    def built_constants(self, scenario: Any, scratch: Path) -> dict[str, dict[str, Any]]:
        world = FixtureWorld(scratch, [], may_kill=False)
        try:
            return {"step_limit": {"ref": "tests.broken_adapters.fails_for_one_scenario:tool_factory", "value": len(tool_factory(world, list(scenario.tools)))}}
        finally:
            world.close()

    def detail(self, run: Any, mode: str = "contract") -> dict[str, Any]:
        world = FixtureWorld(run.scratch, [], may_kill=False)
        try:
            return {"tools": [spec.name for spec in tool_factory(world, list(run.scenario.tools))]}
        finally:
            world.close()
