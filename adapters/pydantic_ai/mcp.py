"""The ``mcp`` mode's tools: Pydantic AI's documented MCP client, ``MCPToolset``, every setting at its default.

``MCPToolset(url, headers=...)`` over Streamable HTTP, or ``MCPToolset(StdioTransport(command, args, env))`` over stdio
(the harness's relay), passed as the agent's ``toolsets`` (https://pydantic.dev/docs/ai/mcp/client/): the agent has no
other tool. The toolset's defaults are kept: a 300 s read timeout, ``tool_error_behavior='retry'`` (an ``isError``
result goes to the model as a retry prompt), no approval, no ``_meta`` of the caller's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastmcp.client.transports import StdioTransport
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.function import AgentInfo

from adapters.mcp_endpoint import McpEndpoint


def mcp_toolset(endpoint: McpEndpoint) -> MCPToolset:
    """The documented toolset for the step's endpoint: the URL with the bearer header, or the relay over stdio."""
    if endpoint.transport == "stdio":
        return MCPToolset(StdioTransport(command=endpoint.command, args=endpoint.args, env=endpoint.env))
    return MCPToolset(endpoint.url, headers=endpoint.headers)


def offered_once(endpoint: McpEndpoint, emit: Callable[[dict[str, Any]], None]) -> Callable[[AgentInfo], None]:
    """Trace, at the step's first model request, each tool's definition as Pydantic AI gives it to the model
    (``ToolDefinition.parameters_json_schema``, from the toolset's ``tools/list``)."""
    done: list[bool] = []

    def offered(info: AgentInfo) -> None:
        if not done:
            done.append(True)
            emit({"kind": "mcp_tools", "transport": endpoint.transport, "tools": {t.name: t.parameters_json_schema for t in info.function_tools}})

    return offered
