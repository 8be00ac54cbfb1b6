"""The ``mcp`` mode's tools: AgentScope's documented MCP client, ``agentscope.mcp.MCPClient``, every setting at its default.

As the "MCP" page teaches it (https://docs.agentscope.io/v2/building-blocks/tool/mcp; its source:
https://github.com/agentscope-ai/docs/blob/main/en/versions/2.0.10dev/building-blocks/tool/mcp.mdx): a stateful client,
``MCPClient(name, is_stateful=True, mcp_config=HttpMCPConfig(url, headers={"Authorization": "Bearer ..."}))`` over
Streamable HTTP or ``StdioMCPConfig(command, args, env)`` over stdio (the harness's relay; a stdio client must be
stateful), ``await client.connect()`` before the toolkit is built, ``Toolkit(mcps=[client])`` as the agent's only tools,
and ``await client.close()`` when the step's session closes. Everything else is left at its default: the HTTP timeout
(``HttpMCPConfig.timeout`` 30 s), no ``execution_timeout``, no ``enable_tools`` / ``disable_tools``, the permission
system's mode ``DEFAULT`` (a tool the server marks ``readOnlyHint`` runs, every other one asks the user: the driver answers
as in ``defaults``).

AgentScope names each MCP tool ``mcp__{client name}__{tool}`` (characters outside ``[a-zA-Z0-9_-]`` replaced by ``x``,
``agentscope/tool/_adapters.py``): the scripted model calls a tool by that name, as a model given it would, and the
session reports a call under the server's tool name (``McpToolNames``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from agentscope.mcp import HttpMCPConfig, MCPClient, StdioMCPConfig

from adapters.mcp_endpoint import McpEndpoint

from .model import ToolNames
from .session import AgentSession

MCP_NAME = "bench"
"""The client's name (``MCPClient.name``): the namespace of its tools' names."""
PREFIX = f"mcp__{MCP_NAME}__"


def mcp_client(endpoint: McpEndpoint) -> MCPClient:
    """The documented stateful client for the step's endpoint: the URL with the bearer header, or the relay over stdio."""
    config: HttpMCPConfig | StdioMCPConfig
    if endpoint.transport == "stdio":
        config = StdioMCPConfig(command=endpoint.command, args=endpoint.args, env=endpoint.env)
    else:
        config = HttpMCPConfig(url=endpoint.url, headers=endpoint.headers)
    return MCPClient(name=MCP_NAME, is_stateful=True, mcp_config=config)


class McpToolNames(ToolNames):
    """A server tool's name as AgentScope gives it to the model (``MCPTool.name``), and back."""

    def given(self, tool: str) -> str:
        return PREFIX + re.sub(r"[^a-zA-Z0-9_-]", "x", tool)

    def tool(self, given: str) -> str:
        return given.removeprefix(PREFIX)


class ToolsSeen:
    """Traces, once per step, the MCP tools as the toolkit gives them to the model: the first request's function schemas
    (``Toolkit.get_tool_schemas``, which the agent hands its model as ``tools``), each under the server's tool name (the
    runner compares it with that tool's ``inputSchema``; the name the model was given is ``McpToolNames.given`` of it)."""

    def __init__(self, emit: Callable[[dict[str, Any]], None], transport: str) -> None:
        self.emit = emit
        self.transport = transport
        self.done = False

    def __call__(self, tools: list[dict]) -> None:
        if self.done:
            return
        self.done = True
        names = McpToolNames()
        schemas = {names.tool(t["function"]["name"]): t["function"]["parameters"] for t in tools if t["function"]["name"].startswith(PREFIX)}
        self.emit({"kind": "mcp_tools", "transport": self.transport, "tools": schemas})


class McpAgentSession(AgentSession):
    """``defaults``' session, with the step's MCP client closed when the session closes."""

    def __init__(self, agent: Any, client: MCPClient, *args: Any, **kwargs: Any) -> None:
        super().__init__(agent, *args, **kwargs)
        self.client = client

    async def close(self) -> None:
        await self.client.close()
