"""The MCP server: the registry's tools over the official MCP SDK's low-level server, every call through the boundary.

One server serves one session: its ``ToolBoundary`` is fixed when the server starts, and nothing a client sends (an
``Mcp-Session-Id`` header included) chooses another. ``tools/list`` sends each tool's JSON Schema verbatim, annotations
mapped from its risk class and the risk class itself in ``_meta`` (a client should not trust annotations from a server
it does not trust: the policy is enforced here). ``tools/call`` hands the call to the boundary; every outcome (ok,
replayed, invalid arguments, approval required, denied, unknown tool, refused, in progress, uncertain, error) is a tool
result with ``isError``, ``structuredContent`` and the status in the text too (some clients show the model only text),
never a raw exception. No elicitation: a client answers an elicitation itself, so it cannot be the approval gate.

Input is bounded (``bounded``): a message over the size or nesting limit is answered with a JSON-RPC error naming the
problem and never reaches the SDK. Over HTTP every request must carry ``Authorization: Bearer <token>``; any other
gets 401 before anything else reads it; and every connection has the deadlines and cap of ``harness.http_bounds``
(a request head within ``HEAD_TIMEOUT_S``, its body within ``BODY_TIMEOUT_S``, at most ``MAX_CONNECTIONS`` at once), so
neither a client without the token nor one with it can hold the server's descriptors.
"""

from __future__ import annotations

import hmac
import os
import resource
import socket
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from handwritten.boundary import BoundaryResult, ToolBoundary
from handwritten.canonical import canonical_json
from handwritten.tools import RiskClass
from harness.column_side.fixtures.faults import MCP_FAULT_EXIT_CODE
from harness.column_side.mcp import ACTS_FOR_META, APPROVAL_META, KEY_META, RISK_META
from harness.column_side.mcp.bounded import MAX_MESSAGE_BYTES, BoundedBody, bounded_stdio
from harness.http_bounds import BODY_TIMEOUT_S, HEAD_TIMEOUT_S, ConnectionBounds
from harness.scenarios import MCP_SLOW_DELAY_S

if TYPE_CHECKING:
    import uvicorn

SERVER_NAME = "agent-framework-bench"
SERVER_VERSION = "0.1.0"
MAX_CONNECTIONS = 512  # connections at once (past it the oldest one still owing a request head is closed: harness.http_bounds)
HTTP_BOUNDS = ConnectionBounds(MAX_CONNECTIONS, HEAD_TIMEOUT_S, BODY_TIMEOUT_S)
"""The connection bounds of ``serve_http``: the process is the server's alone and raises its descriptor limit to the
hard one, so it holds twice the wire server's connections."""
MAX_TRANSPORT_SESSIONS = 256  # the SDK's transport sessions (Mcp-Session-Id) open at once: a host needs a few
TRANSPORT_IDLE_S = 600.0  # after which an idle transport session is closed

# (readOnlyHint, destructiveHint, idempotentHint) per risk class: hints for hosts, never the policy itself.
_HINTS = {
    RiskClass.READ_ONLY: (True, False, True),
    RiskClass.REVERSIBLE_WRITE: (False, False, True),
    RiskClass.HIGH_RISK: (False, True, False),
    RiskClass.ALWAYS_DENY: (False, True, False),
}


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


AnswerFault = Callable[[str, "ServerRequestContext[Any]"], Awaitable[None]]
"""What a transport does to the answer of a call whose tool met an MCP fault (``harness.scenarios.MCP_POINTS``), given
the point and the request's context: awaited before the answer is sent."""


async def stdio_answer_fault(point: str, ctx: ServerRequestContext[Any]) -> None:
    """Over stdio a server can only end its output to drop a call: it dies, before its answer (both ``mcp.kill_after_effect``
    and ``mcp.reset_mid_call``); a slow answer is sent after ``MCP_SLOW_DELAY_S``."""
    if point == "mcp.slow_answer":
        await anyio.sleep(MCP_SLOW_DELAY_S)
        return
    sys.stdout.flush()
    os._exit(MCP_FAULT_EXIT_CODE)


def build_server(boundary: ToolBoundary, fired: list[str] | None = None, answer_fault: AnswerFault = stdio_answer_fault) -> Server[Any]:
    """The low-level server of one session's boundary. ``fired`` is the list the boundary's tools append the MCP faults
    they met to (``session.open_boundary``): each is handed to ``answer_fault`` before the call's answer."""
    met = fired if fired is not None else []

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_listing(boundary))

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        result = answer_call(boundary, params)
        try:
            while met:  # the tool ran synchronously on this loop: what fired, fired in this call
                await answer_fault(met.pop(0), ctx)
        except anyio.get_cancelled_exc_class():  # the client stopped waiting (cancelled the call, or ended the session)
            boundary.withdrawn(result)
            raise
        return tool_result(result)

    return Server(SERVER_NAME, version=SERVER_VERSION, on_list_tools=list_tools, on_call_tool=call_tool)


def answer_call(boundary: ToolBoundary, params: types.CallToolRequestParams) -> BoundaryResult:
    """One ``tools/call`` through the boundary, with the key and any approval the client attached in ``_meta``."""
    meta: dict[str, Any] = dict(params.meta or {})
    key = meta.get(KEY_META)
    if key is not None and not isinstance(key, str):  # a key the client meant to send: never silently no key
        return BoundaryResult("refused", "", params.name, {"error": "the idempotency key must be a string"}, "invalid_key")
    return boundary.call(params.name, params.arguments if params.arguments is not None else {}, key, claimed_approval=APPROVAL_META in meta)


def serve_stdio(server: Server[Any]) -> None:
    """Serve one connection over stdin/stdout until the client closes it."""

    async def main() -> None:
        async with bounded_stdio() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


# -- Streamable HTTP, with a bearer token --------------------------------------------------------------------------


class RequireBearer:
    """Every HTTP request (and websocket) must carry ``Authorization: Bearer <token>``, compared in constant time; any
    other gets 401 and reaches nothing behind it. Only the server's own lifespan events pass without one. (The SDK's
    bearer support comes with its OAuth resource-server settings, an authorization server's issuer among them; this
    server has one static token and no authorization server.)"""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" or self._authorized(scope):
            await self.app(scope, receive, send)
        elif scope["type"] == "http":
            body = {"error": "unauthorized", "error_description": "send Authorization: Bearer <the token in the state directory's http-token>"}
            await JSONResponse(body, status_code=401, headers={"WWW-Authenticate": 'Bearer realm="agent-framework-bench"'})(scope, receive, send)
        else:
            await send({"type": "websocket.close", "code": 1008})

    def _authorized(self, scope: Scope) -> bool:
        given = [value for name, value in scope.get("headers", []) if name == b"authorization"]
        if len(given) != 1:
            return False
        scheme, _, token = given[0].partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(token.strip(), self._expected)


def serve_http(server: Server[Any], sock: socket.socket, token: str) -> None:
    """Serve Streamable HTTP at ``/mcp`` on a socket bound to the port (``cli.bound``) until the process is stopped, with
    the descriptor limit raised to the hard one (``http_server`` says what a request passes)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sock.listen(128)
    http_server(server, token).run(sockets=[sock])


def http_server(server: Server[Any], token: str, bounds: ConnectionBounds = HTTP_BOUNDS) -> uvicorn.Server:
    """The uvicorn server (not started) of Streamable HTTP at ``/mcp``: the token checked first, then the body's bounds,
    then the SDK's app (its DNS-rebinding protection is on for loopback). A connection that has not sent a whole request
    head within ``bounds.head_timeout_s``, or a request body within ``bounds.body_timeout_s``, is closed, and at most
    ``bounds.max_connections`` are open at once (``harness.http_bounds``), so clients, with the token or without, can make
    the server busy but not hold it; at most ``MAX_TRANSPORT_SESSIONS`` transport sessions are kept, one idle for
    ``TRANSPORT_IDLE_S`` closed."""
    import uvicorn

    sdk_app = server.streamable_http_app(
        host="127.0.0.1", max_request_body_size=MAX_MESSAGE_BYTES, max_sessions=MAX_TRANSPORT_SESSIONS, session_idle_timeout=TRANSPORT_IDLE_S
    )
    app = RequireBearer(BoundedBody(sdk_app), token)
    return uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", **bounds.uvicorn_settings()))
