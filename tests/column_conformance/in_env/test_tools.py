"""The fixture tools as the column builds them for its framework: every tool of the catalog (``harness.fixture_tools``),
each offering the model exactly the parameters of its schema the model may fill in, the user a tool acts for excepted
(``list_orders`` reads it from the session). Read from the framework's own tool objects through the column's
``tool_schemas`` (LangChain's ``tool_call_schema``, the Agents SDK's ``params_json_schema``, ...), in each mode it
documents them for."""

from __future__ import annotations

from typing import Any

from harness.column_side.protocol import ColumnAdapter
from harness.fixture_tools import FIXTURE_TOOLS

# A column's own choices, measured here:
# - the engine offers the catalog's schema as it is, the user a tool acts for included (optional; its boundary fills in the
#   session's user and refuses another: handwritten/tools.py, as_session_user), over MCP too;
OFFERS_THE_USER = {"handwritten", "handwritten_mcp"}
# - the Agents SDK's strict schemas list every parameter as required, an optional one as nullable (``function_tool``'s
#   default ``strict_mode``; the wire cells' ``schema_diff`` in evidence/openai_agents.json);
ALL_REQUIRED = {"openai_agents"}
# - the local state graph's tools are the engine's ``ToolSpec``s too, and its column reports no tool objects (``tool_schemas``
#   is None: the wire observable has nothing of it to compare).
REPORTS_NO_TOOL_OBJECTS = {"local_state_graph"}


def modes(column: ColumnAdapter) -> list[str]:
    """The modes in which the column's ``tool_schemas`` reads the tools it builds: a third-party column's reads them as
    ``defaults`` and ``wire`` build them (its contract tools are its glue's, which the hook does not report; in ``mcp``
    it builds none: its tools are the MCP server's)."""
    return [m for m in column.modes if m != "mcp" and (m != "contract" or "defaults" not in column.modes)]


def offered(name: str, column: str) -> dict[str, Any]:
    """What the catalog says the model may fill in for tool ``name``: its parameters and which are required."""
    tool = FIXTURE_TOOLS[name]
    hidden = None if column in OFFERS_THE_USER else tool.acts_for
    parameters = sorted(p for p in tool.schema["properties"] if p != hidden)
    return {"parameters": parameters, "required": parameters if column in ALL_REQUIRED else sorted(r for r in tool.schema["required"] if r != hidden)}


def test_every_fixture_tool_offers_the_model_exactly_its_parameters(mode: str, column: ColumnAdapter) -> None:
    schemas = column.tool_schemas(sorted(FIXTURE_TOOLS), mode)
    if column.name in REPORTS_NO_TOOL_OBJECTS:
        assert schemas is None
        return
    assert schemas is not None
    seen = {name: {"parameters": sorted(s.get("properties", {})), "required": sorted(s.get("required", []))} for name, s in schemas.items()}
    assert seen == {name: offered(name, column.name) for name in FIXTURE_TOOLS}

