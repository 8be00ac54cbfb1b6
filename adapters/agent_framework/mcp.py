"""The ``mcp`` mode's tools: Agent Framework's documented MCP clients, every setting at its default.

``MCPStreamableHTTPTool(name, url=..., static_headers={"Authorization": "Bearer ..."})`` over Streamable HTTP, or
``MCPStdioTool(name, command=..., args=..., env=...)`` over stdio (the harness's relay), passed as the agent's ``tools``
(https://learn.microsoft.com/en-us/agent-framework/user-guide/model-context-protocol/using-mcp-tools, Python; the classes'
reference: https://learn.microsoft.com/en-us/python/api/agent-framework-core/agent_framework.mcpstreamablehttptool and
``agent_framework.mcpstdiotool``): the agent has no other tool. ``static_headers`` is how agent-framework-core 1.23.0
takes a fixed header (its docstring, and the package's README "MCP HTTP client ownership and cookies"); the ``headers``
that the older reference page lists is accepted and ignored (``**kwargs``, "accepted for backward compatibility but not
used"). The agent connects the tool on its first run and keeps it in its exit stack until the agent is closed
(``Agent.close``, what ``async with Agent(...)`` does on exit): the session closes it at the end of the step.

Defaults kept: ``approval_mode=None`` (every MCP tool ``never_require``), ``request_timeout=None`` (no per-request
timeout; the tool's own HTTP client: 30 s connect, 300 s read), ``load_tools``/``load_prompts=True``,
``tool_result_content="structured_first"``, no ``tool_name_prefix``, no ``header_provider``, no ``http_client``, and the
framework's ``include_detailed_errors=False`` (an ``isError`` result reaches the model as ``Error: Function failed.``).
"""

from __future__ import annotations

from typing import Any

from agent_framework import ChatContext, FunctionInvocationContext, MCPStdioTool, MCPStreamableHTTPTool, chat_middleware, function_middleware

from adapters.column import Trace
from adapters.mcp_endpoint import McpEndpoint

NAME = "fixtures"  # the tool group's name (no prefix on the tools: tool_name_prefix stays None)


def mcp_tool(endpoint: McpEndpoint) -> MCPStdioTool | MCPStreamableHTTPTool:
    """The documented client for the step's endpoint: the URL with the bearer header, or the relay over stdio."""
    if endpoint.transport == "stdio":
        return MCPStdioTool(name=NAME, command=endpoint.command, args=endpoint.args, env=endpoint.env)
    return MCPStreamableHTTPTool(name=NAME, url=endpoint.url, static_headers=endpoint.headers)


def mcp_middleware(endpoint: McpEndpoint, trace: Trace, statuses: dict[str, str]) -> list[Any]:
    """What the harness observes of the MCP tools, changing nothing: a chat middleware that traces, on the step's first
    model call, the tools the model is offered (``options["tools"]``: the ``FunctionTool`` objects the MCP tool built from
    ``tools/list``, each with ``parameters()``, the schema the model is given), and a function middleware that records
    ``ok`` for each call the MCP tool returned from (it raises on an ``isError`` result or a transport error, and the
    framework turns that into ``Error: Function failed.`` for the model: an ``error`` result)."""
    seen: list[bool] = []

    @chat_middleware
    async def offered(context: ChatContext, call_next: Any) -> None:
        if not seen:
            seen.append(True)
            tools = [t for t in (context.options or {}).get("tools") or () if hasattr(t, "parameters")]
            trace.emit({"kind": "mcp_tools", "transport": endpoint.transport, "tools": {t.name: dict(t.parameters()) for t in tools}})
        await call_next()

    @function_middleware
    async def answered(context: FunctionInvocationContext, call_next: Any) -> None:
        await call_next()
        statuses[str(context.metadata["call_id"])] = "ok"

    return [offered, answered]
