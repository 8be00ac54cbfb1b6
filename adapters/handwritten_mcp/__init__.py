"""The ``handwritten_mcp`` column: the hand-written engine taking its tools from the project's MCP server."""

from harness.columns import Column

COLUMN = Column(
    "handwritten_mcp",
    "adapters.handwritten_mcp.column:HandwrittenMcpColumn",
    "project",
    "the hand-written engine with its tools behind the MCP server (scripts/serve_mcp.py) over stdio",
)
