"""The ``mcp`` mode's tools: ADK's documented MCP client, ``McpToolset``, every setting at its default.

``McpToolset(connection_params=StreamableHTTPConnectionParams(url, headers={"Authorization": "Bearer ..."}))`` over
Streamable HTTP, or ``McpToolset(connection_params=StdioConnectionParams(server_params=StdioServerParameters(command,
args, env)))`` over stdio (the harness's relay), put in the agent's ``tools`` list as the page teaches
(https://google.github.io/adk-docs/tools-custom/mcp-tools/): the agent has no other tool. The toolset's defaults are
kept: ``timeout=5`` (connect and ``tools/list``; over stdio every request's read timeout too), ``sse_read_timeout=300``
(HTTP), ``require_confirmation=False`` (no approval of ADK's for an MCP tool), no ``tool_filter``, no
``header_provider``, no auth scheme. The session closes the toolset at the end of each driver step (``await
toolset.close()``, the page's "Lifecycle Cleanup").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.adk.tools.mcp_tool import McpToolset
from google.adk.tools.mcp_tool.mcp_session_manager import StdioConnectionParams, StreamableHTTPConnectionParams
from mcp import StdioServerParameters

from adapters.mcp_endpoint import McpEndpoint


def mcp_toolset(endpoint: McpEndpoint) -> McpToolset:
    """The documented toolset for the step's endpoint: the URL with the bearer header, or the relay over stdio."""
    if endpoint.transport == "stdio":
        server = StdioServerParameters(command=endpoint.command, args=endpoint.args, env=endpoint.env)
        return McpToolset(connection_params=StdioConnectionParams(server_params=server))
    return McpToolset(connection_params=StreamableHTTPConnectionParams(url=endpoint.url, headers=endpoint.headers))


def offered_once(endpoint: McpEndpoint, emit: Callable[[dict[str, Any]], None]) -> Callable[[LlmRequest], None]:
    """Trace, at the step's first model request, each tool's declaration as ADK gives it to the model: the
    ``FunctionDeclaration``s of ``LlmRequest.config.tools`` (an ``McpTool`` builds its own from the server's
    ``tools/list``, ``parameters_json_schema`` = the tool's ``inputSchema``), read where the model receives them."""
    done: list[bool] = []

    def offered(request: LlmRequest) -> None:
        if done:
            return
        done.append(True)
        tools: dict[str, Any] = {}
        for tool in (request.config.tools if request.config else None) or ():
            for declaration in getattr(tool, "function_declarations", None) or ():
                schema = declaration.parameters_json_schema
                if schema is None and declaration.parameters is not None:  # ADK's Schema form (JSON_SCHEMA_FOR_FUNC_DECL off)
                    schema = declaration.parameters.model_dump(mode="json", exclude_none=True)
                tools[str(declaration.name)] = schema if schema is not None else {}
        emit({"kind": "mcp_tools", "transport": endpoint.transport, "tools": tools})

    return offered
