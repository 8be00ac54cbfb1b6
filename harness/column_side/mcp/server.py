"""The MCP server: the registry's tools over the official MCP SDK's low-level server, every call through the boundary.

One server serves one session: its ``ToolBoundary`` is fixed when the server starts, and nothing a client sends (an
``Mcp-Session-Id`` header included) chooses another. ``tools/list`` sends each tool's JSON Schema verbatim, annotations
mapped from its risk class and the risk class itself in ``_meta`` (a client should not trust annotations from a server
it does not trust: the policy is enforced here). ``tools/call`` hands the call to the boundary; every outcome (ok,
replayed, invalid arguments, approval required, denied, unknown tool, refused, in progress, uncertain, error) is a tool
result with ``isError``, ``structuredContent`` and the status in the text too (some clients show the model only text),
never a raw exception. No elicitation: a client answers an elicitation itself, so it cannot be the approval gate.

Input is bounded: a message of at most ``MAX_MESSAGE_BYTES`` (stdio: one line; HTTP: one request body, else 413),
JSON nested at most ``MAX_NESTING`` deep; anything else is answered with a JSON-RPC error naming the problem. Over
HTTP every request must carry ``Authorization: Bearer <token>``; any other gets 401 before the SDK sees it.
"""

from __future__ import annotations

import hmac
import json
import re
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.message import SessionMessage
from pydantic import ValidationError
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from handwritten.boundary import MAX_ARGUMENT_BYTES, MAX_NESTING, BoundaryResult, ToolBoundary
from handwritten.canonical import canonical_json
from handwritten.tools import RiskClass
from harness.column_side.mcp import ACTS_FOR_META, APPROVAL_META, KEY_META, RISK_META

SERVER_NAME = "agent-framework-bench"
SERVER_VERSION = "0.1.0"
MAX_MESSAGE_BYTES = MAX_ARGUMENT_BYTES  # one JSON-RPC message: a call's arguments cannot be larger than the message
PARSE_ERROR, INVALID_REQUEST = -32700, -32600

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


def build_server(boundary: ToolBoundary) -> Server[Any]:
    """The low-level server of one session's boundary."""

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_listing(boundary))

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        meta: dict[str, Any] = dict(params.meta or {})
        key = meta.get(KEY_META)
        key = key if isinstance(key, str) and key else None  # anything else is no key: the call is new
        result = boundary.call(params.name, params.arguments if params.arguments is not None else {}, key, claimed_approval=APPROVAL_META in meta)
        return tool_result(result)

    return Server(SERVER_NAME, version=SERVER_VERSION, on_list_tools=list_tools, on_call_tool=call_tool)


# -- stdio, bounded ----------------------------------------------------------------------------------------------


def serve_stdio(server: Server[Any]) -> None:
    """Serve one connection over stdin/stdout until the client closes it."""

    async def main() -> None:
        async with bounded_stdio() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


@asynccontextmanager
async def bounded_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio transport with limits: one message per line, at most ``MAX_MESSAGE_BYTES`` and ``MAX_NESTING``
    deep; a line over either, or one that is no JSON-RPC message, is answered at once with a JSON-RPC error (its id when
    one can be read from it) and never reaches the server. (The SDK's own reader keeps any line whole and drops one it
    cannot parse without a word, so its client waits forever.)"""
    stdout = anyio.wrap_file(sys.stdout.buffer)

    async def readline(limit: int) -> bytes:  # in a thread, as anyio.wrap_file reads, but with a size
        return await anyio.to_thread.run_sync(sys.stdin.buffer.readline, limit, abandon_on_cancel=True)

    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    writing = anyio.Lock()

    async def write(message: types.JSONRPCMessage) -> None:
        async with writing:
            await stdout.write(message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n")
            await stdout.flush()

    async def read_lines() -> None:
        async with read_send:
            while line := await readline(MAX_MESSAGE_BYTES + 2):
                if len(line.rstrip(b"\r\n")) > MAX_MESSAGE_BYTES:  # the rest of the line is read and dropped, never kept
                    tail = line[-4096:]
                    while not tail.endswith(b"\n") and (more := await readline(1 << 16)):
                        tail = (tail + more)[-4096:]
                    await write(_error(_id_of_oversized(line, tail), INVALID_REQUEST, f"message larger than the {MAX_MESSAGE_BYTES}-byte limit: refused"))
                    continue
                parsed = _parse(line)
                if isinstance(parsed, types.JSONRPCError):
                    await write(parsed)
                elif parsed is not None:
                    await read_send.send(SessionMessage(parsed))

    async def write_lines() -> None:
        async with write_receive:
            async for session_message in write_receive:
                await write(session_message.message)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_lines)
        tasks.start_soon(write_lines)
        try:
            yield read_receive, write_send
        finally:
            tasks.cancel_scope.cancel()


def _parse(line: bytes) -> types.JSONRPCMessage | None:
    """A message, a JSON-RPC error to answer instead, or None for a blank line."""
    if not line.strip():
        return None
    try:
        data = json.loads(line)
    except RecursionError:
        return _error(_id_of_oversized(line, line), INVALID_REQUEST, f"message nested deeper than {MAX_NESTING} levels: refused")
    except ValueError as exc:
        return _error(None, PARSE_ERROR, f"not JSON: {exc}")
    request_id = data.get("id") if isinstance(data, dict) and isinstance(data.get("id"), str | int) else None
    if _depth(data) > MAX_NESTING + 4:  # the envelope (message, params, arguments) plus the arguments' own limit
        return _error(request_id, INVALID_REQUEST, f"message nested deeper than {MAX_NESTING} levels (arguments included): refused")
    try:
        return types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValidationError as exc:
        return _error(request_id, INVALID_REQUEST, f"not a JSON-RPC message: {exc.errors()[0]['msg']}")


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if deepest > MAX_NESTING + 4:
                return deepest
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


# The id of a message too large or too deep to parse: read only where it is certain to be the message's own, right
# after the opening brace (the Python SDK writes it there) or as the very last member (the TypeScript SDK's place).
_ID = rb'("(?:[^"\\]|\\.){0,256}"|-?\d{1,19})'
_ID_FIRST = re.compile(rb'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*' + _ID)
_ID_LAST = re.compile(rb',\s*"id"\s*:\s*' + _ID + rb"\s*\}\s*\Z")


def _id_of_oversized(head: bytes, tail: bytes) -> str | int | None:
    found = _ID_FIRST.match(head) or _ID_LAST.search(tail)
    return json.loads(found.group(1)) if found else None


def _error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


# -- Streamable HTTP, with a bearer token --------------------------------------------------------------------------


class RequireBearer:
    """Every HTTP request must carry ``Authorization: Bearer <token>`` (compared in constant time); any other gets 401
    and reaches nothing behind it. (The SDK's own bearer support is the OAuth resource-server path, which needs an
    authorization server to issue and verify tokens; this server has one static token.)"""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            body = {"error": "unauthorized", "error_description": "send Authorization: Bearer <the token in the state directory's http-token>"}
            await JSONResponse(body, status_code=401, headers={"WWW-Authenticate": 'Bearer realm="agent-framework-bench"'})(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _authorized(self, scope: Scope) -> bool:
        given = [value for name, value in scope["headers"] if name == b"authorization"]
        if len(given) != 1:
            return False
        scheme, _, token = given[0].partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(token.strip(), self._expected)


def listen(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:``port`` (OSError when it cannot be had: in use, not allowed)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def serve_http(server: Server[Any], sock: socket.socket, token: str) -> None:
    """Serve Streamable HTTP at ``/mcp`` on a socket from ``listen`` (the SDK's DNS-rebinding protection is on for
    loopback, and its request-body limit is ``MAX_MESSAGE_BYTES``)."""
    import uvicorn

    app = RequireBearer(server.streamable_http_app(host="127.0.0.1", max_request_body_size=MAX_MESSAGE_BYTES), token)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])

