"""Bounded input at the MCP server's transports: no message the server cannot answer reaches it, and none goes unanswered.

A message is at most ``MAX_MESSAGE_BYTES`` and its JSON nested at most ``MAX_NESTING`` (plus the envelope's own four
levels: message, params, arguments). Over stdio (``bounded_stdio``: one message per line) a line over either, one that
is not JSON, or (stdio only, where no SDK layer checks it) one that is no JSON-RPC message is answered at once with a
JSON-RPC error saying so, with the message's id when it can be read, and never reaches the server. Over HTTP
(``BoundedBody``, around the SDK's app) a body over either limit is answered the same way before the SDK parses it
(413 for the size, 400 for the nesting). The SDK's own stdio reader keeps any line whole and drops one it cannot parse
without a word (its client then waits forever), and its HTTP parser answers a deep body with a bare "Parse error".
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from handwritten.boundary import MAX_ARGUMENT_BYTES, MAX_NESTING

MAX_MESSAGE_BYTES = MAX_ARGUMENT_BYTES  # one JSON-RPC message: a call's arguments cannot be larger than the message
ENVELOPE_LEVELS = 4  # message, params, arguments: the levels around a tool's arguments
PARSE_ERROR, INVALID_REQUEST, INTERNAL_ERROR = -32700, -32600, -32603


def refusal(raw: bytes) -> tuple[Any, types.JSONRPCError | None]:
    """The JSON of one message, and the error to answer instead of handing it on when it is too large, too deep or not
    JSON (then the JSON is None)."""
    if len(raw) > MAX_MESSAGE_BYTES:
        return None, error(_id_of_unparsed(raw, raw[-4096:]), INVALID_REQUEST, f"message larger than the {MAX_MESSAGE_BYTES}-byte limit: refused")
    try:
        data = json.loads(raw)
    except RecursionError:
        return None, error(_id_of_unparsed(raw, raw), INVALID_REQUEST, f"message nested deeper than {MAX_NESTING} levels: refused")
    except ValueError as exc:
        return None, error(None, PARSE_ERROR, f"not JSON: {exc}")
    if _depth(data) > MAX_NESTING + ENVELOPE_LEVELS:
        return None, error(_id_of(data), INVALID_REQUEST, f"message nested deeper than {MAX_NESTING} levels (arguments included): refused")
    if (b"\\u" in raw or b"\xed" in raw) and not _encodable(data):  # json.loads lets lone surrogates through (escaped or not)
        return None, error(None, INVALID_REQUEST, "message holds a lone surrogate (no Unicode character): refused")
    return data, None


def _encodable(data: Any) -> bool:
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


# -- stdio --------------------------------------------------------------------------------------------------------


@asynccontextmanager
async def bounded_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio transport (the read and write streams ``Server.run`` takes) with the limits above."""
    stdout = anyio.wrap_file(sys.stdout.buffer)

    async def readline(limit: int) -> bytes:  # in a thread, as anyio.wrap_file reads, but with a size
        return await anyio.to_thread.run_sync(sys.stdin.buffer.readline, limit, abandon_on_cancel=True)

    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    writing = anyio.Lock()

    async def write(message: types.JSONRPCMessage) -> None:
        try:
            line = message.model_dump_json(by_alias=True, exclude_unset=True).encode()
        except Exception as exc:  # the writer must outlive one reply it cannot encode: the client would wait forever
            line = error(None, INTERNAL_ERROR, f"a reply could not be encoded ({type(exc).__name__})").model_dump_json(by_alias=True).encode()
        async with writing:
            await stdout.write(line + b"\n")
            await stdout.flush()

    reading = anyio.CancelScope()

    async def read_lines() -> None:
        with reading:
            await _read_lines()

    async def _read_lines() -> None:
        async with read_send:
            while line := await readline(MAX_MESSAGE_BYTES + 2):
                if len(line.rstrip(b"\r\n")) > MAX_MESSAGE_BYTES:  # the rest of the line is read and dropped, never kept
                    tail = await _rest_of_line(readline, line)
                    await write(error(_id_of_unparsed(line, tail), INVALID_REQUEST, f"message larger than the {MAX_MESSAGE_BYTES}-byte limit: refused"))
                    continue
                parsed = _message(line)
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
            # The server is done (the input ended, or it failed): stop reading, but let every reply it sent go out first.
            reading.cancel()
            write_send.close()


async def _rest_of_line(readline: Callable[[int], Awaitable[bytes]], start: bytes) -> bytes:
    """Read an oversized line to its end, keeping only its last 4 KiB (where a TypeScript client puts the id)."""
    tail = start[-4096:]
    while not tail.endswith(b"\n") and (more := await readline(1 << 16)):
        tail = (tail + more)[-4096:]
    return tail


def _message(line: bytes) -> types.JSONRPCMessage | None:
    """A line's message, a JSON-RPC error to answer instead, or None for a blank line."""
    if not line.strip():
        return None
    data, refused = refusal(line)
    if refused is not None:
        return refused
    try:
        message = types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValidationError as exc:
        return error(_id_of(data), INVALID_REQUEST, f"not a JSON-RPC message: {exc.errors()[0]['msg']}")
    if isinstance(message, types.JSONRPCNotification) and isinstance(data, dict) and "id" in data:
        # A request whose id is no string or integer would pass as a notification and get no answer at all.
        return error(None, INVALID_REQUEST, f"a request's id must be a string or an integer, not {json.dumps(data['id'])[:64]}")
    return message


# -- Streamable HTTP ------------------------------------------------------------------------------------------------


class BoundedBody:
    """Reads a POST's body whole (at most ``MAX_MESSAGE_BYTES``) and answers one over a limit itself; any other goes on
    to the SDK's app with the same body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > MAX_MESSAGE_BYTES:
                refused = error(_id_of_unparsed(body, b""), INVALID_REQUEST, f"message larger than the {MAX_MESSAGE_BYTES}-byte limit: refused")
                await _answer(refused, 413, scope, receive, send)
                return
        _, too_deep = refusal(body)
        if too_deep is not None and too_deep.error.code == INVALID_REQUEST:  # what is merely not JSON, the SDK answers
            await _answer(too_deep, 400, scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


async def _answer(refused: types.JSONRPCError, status: int, scope: Scope, receive: Receive, send: Send) -> None:
    body = refused.model_dump_json(by_alias=True, exclude_unset=True)
    await Response(body, status_code=status, media_type="application/json")(scope, receive, send)


# -- what a message says of itself ------------------------------------------------------------------------------------


def _id_of(data: Any) -> str | int | None:
    """The message's id if it is one JSON-RPC allows: a string or an integer (not a bool, which Python counts as one)."""
    found = data.get("id") if isinstance(data, dict) else None
    return found if type(found) in (str, int) else None


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if deepest > MAX_NESTING + ENVELOPE_LEVELS:
                return deepest
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


# The id of a message too large or too deep to parse: read only where it is certain to be the message's own, right
# after the opening brace (the Python SDK writes it there) or as the very last member (the TypeScript SDK's place).
_ID = rb'("(?:[^"\\]|\\.){0,256}"|-?\d{1,19}(?=\s*[,}]))'  # a whole string or integer, never the start of a longer number
_ID_FIRST = re.compile(rb'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*' + _ID)
_ID_LAST = re.compile(rb',\s*"id"\s*:\s*' + _ID + rb"\s*\}\s*\Z")


def _id_of_unparsed(head: bytes, tail: bytes) -> str | int | None:
    found = _ID_FIRST.match(head) or _ID_LAST.search(tail)
    return _id_of({"id": json.loads(found.group(1))}) if found else None
