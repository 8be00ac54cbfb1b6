# The 0.6.11 pin has no langchain-mcp-adapters (the mode is not offered there: column.py), and this module is checked
# against that pin's packages too (scripts/typecheck_adapters.py): there its imports are unknown, not wrong.
# mypy: disable-error-code="import-not-found"
"""The ``mcp`` mode's tools: LangChain's documented MCP client for LangGraph, ``langchain-mcp-adapters``, at its defaults.

``MultiServerMCPClient({"bench": {"transport": "streamable_http", "url": ..., "headers": {"Authorization": ...}}})``
over Streamable HTTP, or ``{"transport": "stdio", "command": ..., "args": [...], "env": {...}}`` over stdio (the
harness's relay), and ``await client.get_tools()`` handed to the graph's model and ``ToolNode`` exactly where the
defaults mode hands its fixture tools, as the pages teach (https://docs.langchain.com/oss/python/langchain/mcp,
"Use MCP tools with LangGraph" / ``StateGraph`` with ``ToolNode``; https://github.com/langchain-ai/langchain-mcp-adapters):
the graph has no other tool. Every setting of the client is its default: no ``tool_interceptors``, no ``callbacks``,
``tool_name_prefix=False``, ``handle_tool_errors=True`` (an ``isError`` result reaches the model as an error
``ToolMessage``), the connection's own timeouts (Streamable HTTP: httpx's 30 s, 300 s to read; stdio: none), and the
client's stateless sessions ("``MultiServerMCPClient`` is stateless by default. Each tool invocation creates a fresh MCP
``ClientSession``, executes the tool, and then cleans up"): each call opens, initializes and closes its own session
(over stdio: starts and stops its own relay), so the client holds nothing open between calls and a step has nothing to
close at its end. The adapter has no approval of its own for MCP tools; the graph's approval node is the defaults
mode's. The tools are coroutines only (``StructuredTool(coroutine=...)``): the graph runs them through LangGraph's
asynchronous stream (``astream``), the only way those docs run them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.sessions import Connection

from adapters.mcp_endpoint import McpEndpoint

SERVER = "bench"
"""The one server's name in the client's connections: the tools keep their own names (``tool_name_prefix=False``)."""


def mcp_client(endpoint: McpEndpoint) -> MultiServerMCPClient:
    """The documented client for the step's endpoint: the URL with the bearer header, or the relay over stdio."""
    connection: Connection
    if endpoint.transport == "stdio":
        connection = {"transport": "stdio", "command": endpoint.command, "args": endpoint.args, "env": endpoint.env}
    else:
        connection = {"transport": "streamable_http", "url": endpoint.url, "headers": endpoint.headers}
    return MultiServerMCPClient({SERVER: connection})


async def mcp_tools(endpoint: McpEndpoint, emit: Callable[[dict[str, Any]], None]) -> list[BaseTool]:
    """The server's tools as the client gives them (``await client.get_tools()``: one ``tools/list``), and on the
    column trace each one's parameters as the graph's model is given them: the model's ``bind_tools`` turns every tool
    into ``convert_to_openai_tool(tool)`` (``adapters.scripted_chat_model``; ``ChatOpenAI`` does the same), and the
    ``parameters`` of that are the ``args_schema`` the adapter built from the tool's ``inputSchema``."""
    tools = await mcp_client(endpoint).get_tools()
    given = {tool.name: convert_to_openai_tool(tool)["function"].get("parameters", {}) for tool in tools}
    emit({"kind": "mcp_tools", "transport": endpoint.transport, "tools": given})
    return tools
