"""The MCP server: the registry's tools over the official MCP SDK's low-level server, every call through the boundary.

``tools/list`` sends each tool's JSON Schema verbatim, annotations mapped from its risk class and the risk class itself
in ``_meta`` (a client should not trust annotations from a server it does not trust: the policy is enforced here).
``tools/call`` hands the call to the session's ``ToolBoundary``; every outcome (ok, replayed, invalid arguments,
approval required, denied, unknown tool, refused, uncertain, error) is a tool result with ``isError``,
``structuredContent`` and the status in the text too (some clients show the model only text), never a raw exception.
No elicitation: a client answers an elicitation itself, so it cannot be the approval gate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from handwritten.boundary import BoundaryResult, ToolBoundary
from handwritten.canonical import canonical_json
from handwritten.tools import RiskClass
from harness.column_side.mcp import ACTS_FOR_META, APPROVAL_META, KEY_META, RISK_META

SERVER_NAME = "agent-framework-bench"
SERVER_VERSION = "0.1.0"

# (readOnlyHint, destructiveHint, idempotentHint) per risk class: hints for hosts, never the policy itself.
_HINTS = {
    RiskClass.READ_ONLY: (True, False, True),
    RiskClass.REVERSIBLE_WRITE: (False, False, True),
    RiskClass.HIGH_RISK: (False, True, False),
    RiskClass.ALWAYS_DENY: (False, True, False),
}

BoundaryFor = Callable[[str | None], ToolBoundary]
"""The boundary of a session: given the transport's session id (Streamable HTTP), or None (stdio)."""


def tool_listing(boundary: ToolBoundary) -> list[types.Tool]:
    """The registry as MCP tools: raw schemas, annotations from the risk class, the risk class in ``_meta``."""
    listed = []
    for name in boundary.registry.names:
        spec = boundary.registry.get(name)
        read_only, destructive, idempotent = _HINTS[spec.risk]
        meta: dict[str, Any] = {RISK_META: spec.risk.value}
        if spec.acts_for is not None:
            meta[ACTS_FOR_META] = spec.acts_for
        annotations = types.ToolAnnotations(read_only_hint=read_only, destructive_hint=destructive, idempotent_hint=idempotent, open_world_hint=False)
        listed.append(types.Tool(name=name, description=spec.description, input_schema=dict(spec.input_schema), annotations=annotations, _meta=meta))
    return listed


def tool_result(result: BoundaryResult) -> types.CallToolResult:
    """A boundary outcome as a tool result: the status in ``structuredContent`` and first in the text."""
    structured = {"status": result.status, "call_id": result.call_id, "tool": result.tool, "reason": result.reason, "result": result.output}
    text = f"{result.status}: {canonical_json(result.output)}"
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=structured, is_error=result.is_error)


def build_server(boundary_for: BoundaryFor) -> Server[Any]:
    """The low-level server; ``boundary_for`` opens (or returns the open) boundary of the request's session."""

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_listing(boundary_for(_transport_session(ctx))))

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        boundary = boundary_for(_transport_session(ctx))
        meta: dict[str, Any] = dict(params.meta or {})
        key = meta.get(KEY_META)
        key = key if isinstance(key, str) and key else None  # anything else is no key: the call is new
        result = boundary.call(params.name, params.arguments if params.arguments is not None else {}, key, claimed_approval=APPROVAL_META in meta)
        return tool_result(result)

    return Server(SERVER_NAME, version=SERVER_VERSION, on_list_tools=list_tools, on_call_tool=call_tool)


def _transport_session(ctx: ServerRequestContext[Any]) -> str | None:
    """The Streamable HTTP session id of the request, if any."""
    request = ctx.request
    headers = getattr(request, "headers", None)
    return headers.get("mcp-session-id") if headers is not None else None


def serve_stdio(server: Server[Any]) -> None:
    """Serve one connection over stdin/stdout until the client closes it."""

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def serve_http(server: Server[Any], port: int) -> None:
    """Serve Streamable HTTP on 127.0.0.1:``port`` at ``/mcp`` (the SDK's DNS-rebinding protection is on for loopback)."""
    import uvicorn

    app = server.streamable_http_app(host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
