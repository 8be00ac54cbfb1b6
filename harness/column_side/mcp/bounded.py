"""Bounded input at the MCP server's transports: no message the server cannot answer reaches it, and none goes unanswered.

A message is UTF-8, at most ``MAX_MESSAGE_BYTES``, its JSON nested at most ``MAX_NESTING`` (plus the envelope's own
levels: message, params, arguments), free of lone surrogates, and a request's id is a string or an integer (``refusal``
says why one is not). Over stdio (``bounded_stdio``: one message per line) a line that is refused, or (stdio only, where
no SDK layer checks it) one that is no JSON-RPC message, is answered at once with a JSON-RPC error saying so, with the
message's id when it can be read, and never reaches the server; when the input ends, the server answers what it was
asked before it stops. Over HTTP (``BoundedBody``, around the SDK's app) a refused body is answered the same way before
the SDK parses it (413 for the size, 400 for the rest). The SDK's own stdio reader keeps any line whole and drops one it
cannot parse without a word (its client then waits forever), and its HTTP parser answers a deep body with a bare "Parse
error" and a request with a boolean id as a notification: never.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from handwritten.boundary import MAX_ARGUMENT_BYTES, MAX_NESTING, nesting_depth

MAX_MESSAGE_BYTES = MAX_ARGUMENT_BYTES  # one JSON-RPC message: a call's arguments cannot be larger than the message
ENVELOPE_LEVELS = 4  # message, params, arguments: the levels around a tool's arguments
PARSE_ERROR, INVALID_REQUEST, INTERNAL_ERROR = -32700, -32600, -32603
EOF_ANSWER_S = 30.0  # after the input ends, how long the server may take to answer what it was asked before it stops


def refusal(raw: bytes) -> tuple[Any, types.JSONRPCError | None]:
    """The JSON of one message, and the error to answer instead of handing it on (then the JSON is None) when it is too
    large, not UTF-8 (MCP's only encoding: ``json.loads`` would guess UTF-16 or UTF-32), not JSON, too deep, holds a
    lone surrogate (JSON's ``\\ud800`` escapes let one through, and no reply can encode it) or, being a request or a
    batch of them, has an id that is neither a string nor an integer (it would pass for a notification and get no
    answer at all)."""
    if len(raw) > MAX_MESSAGE_BYTES:
        return None, error(_id_of_unparsed(raw, raw[-4096:]), INVALID_REQUEST, f"message larger than the {MAX_MESSAGE_BYTES}-byte limit: refused")
    try:
        text = raw.decode("utf-8")
        data = json.loads(text)
    except UnicodeDecodeError:
        return None, error(None, PARSE_ERROR, "not UTF-8: refused")
    except RecursionError:
        return None, error(_id_of_unparsed(raw, raw), INVALID_REQUEST, f"message nested deeper than {MAX_NESTING} levels: refused")
    except ValueError as exc:
        return None, error(None, PARSE_ERROR, f"not JSON: {exc}")
    if nesting_depth(data, MAX_NESTING + ENVELOPE_LEVELS) > MAX_NESTING + ENVELOPE_LEVELS:
        return None, error(_id_of(data), INVALID_REQUEST, f"message nested deeper than {MAX_NESTING} levels (arguments included): refused")
    if "\\u" in text and not _encodable(data):
        return None, error(None, INVALID_REQUEST, "message holds a lone surrogate (no Unicode character): refused")
    odd = [m["id"] for m in (data if isinstance(data, list) else [data]) if isinstance(m, dict) and "id" in m and _id_of(m) is None]
    if odd:
        return None, error(None, INVALID_REQUEST, f"a request's id must be a string or an integer, not {json.dumps(odd[0])[:64]}")
    return data, None


def _encodable(data: Any) -> bool:
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    """A JSON-RPC error answering ``request_id`` (None: an id that could not be read)."""
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


# -- stdio --------------------------------------------------------------------------------------------------------


@asynccontextmanager
async def bounded_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio transport (the read and write streams ``Server.run`` takes) with the limits above."""
    pipes = _StdioPipes()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(pipes.read_lines)
        tasks.start_soon(pipes.write_lines)
        try:
            yield pipes.read_receive, pipes.write_send
        finally:
            # The server is done (the input ended, or it failed): stop reading, but let every reply it sent go out first.
            pipes.reading.cancel()
            pipes.write_send.close()


class _StdioPipes:
    """stdin read a bounded line at a time into the server's read stream; its write stream, and our refusals, to stdout."""

    def __init__(self) -> None:
        self.read_send, self.read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        self.write_send, self._write_receive = anyio.create_memory_object_stream[SessionMessage](0)
        self.reading = anyio.CancelScope()
        self._stdout = anyio.wrap_file(sys.stdout.buffer)
        self._writing = anyio.Lock()
        self._unanswered = _Unanswered()

    async def read_lines(self) -> None:
        with self.reading:
            async with self.read_send:
                while line := await _readline(MAX_MESSAGE_BYTES + 2):
                    await self._take(line)
                # The input ended: the server stops once it sees that, so first let it answer what it was asked.
                with anyio.move_on_after(EOF_ANSWER_S):
                    await self._unanswered.none()

    async def _take(self, line: bytes) -> None:
        if len(line.rstrip(b"\r\n")) > MAX_MESSAGE_BYTES:  # the rest of the line is read and dropped, never kept
            tail = await _rest_of_line(line)
            await self.write(error(_id_of_unparsed(line, tail), INVALID_REQUEST, f"message larger than the {MAX_MESSAGE_BYTES}-byte limit: refused"))
            return
        parsed = _message(line)
        if isinstance(parsed, types.JSONRPCError):
            await self.write(parsed)
        elif parsed is not None:
            if isinstance(parsed, types.JSONRPCRequest):
                self._unanswered.asked(parsed.id)
            await self.read_send.send(SessionMessage(parsed))

    async def write_lines(self) -> None:
        async with self._write_receive:
            async for session_message in self._write_receive:
                await self.write(session_message.message)

    async def write(self, message: types.JSONRPCMessage) -> None:
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            self._unanswered.answered(message.id)
        try:
            line = message.model_dump_json(by_alias=True, exclude_unset=True).encode()
        except Exception as exc:  # the writer must outlive one reply it cannot encode: the client would wait forever
            line = error(None, INTERNAL_ERROR, f"a reply could not be encoded ({type(exc).__name__})").model_dump_json(by_alias=True).encode()
        async with self._writing:
            await self._stdout.write(line + b"\n")
            await self._stdout.flush()


async def _readline(limit: int) -> bytes:
    """One line of stdin, at most ``limit`` bytes, in a thread (as ``anyio.wrap_file`` reads, but with a size)."""
    return await anyio.to_thread.run_sync(sys.stdin.buffer.readline, limit, abandon_on_cancel=True)


class _Unanswered:
    """The ids of the requests handed to the server that it has not answered yet."""

    def __init__(self) -> None:
        self._ids: set[str | int] = set()
        self._none = anyio.Event()
        self._none.set()

    def asked(self, request_id: str | int) -> None:
        self._ids.add(request_id)
        if self._none.is_set():
            self._none = anyio.Event()

    def answered(self, request_id: str | int | None) -> None:
        self._ids.discard(request_id)
        if not self._ids:
            self._none.set()

    async def none(self) -> None:
        await self._none.wait()


async def _rest_of_line(start: bytes) -> bytes:
    """Read an oversized line to its end, keeping only its last 4 KiB (where a TypeScript client puts the id)."""
    tail = start[-4096:]
    while not tail.endswith(b"\n") and (more := await _readline(1 << 16)):
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
        return types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValidationError as exc:
        return error(_id_of(data), INVALID_REQUEST, f"not a JSON-RPC message: {exc.errors()[0]['msg']}")


# -- Streamable HTTP ------------------------------------------------------------------------------------------------


class BoundedBody:
    """Reads a POST's body whole (at most ``MAX_MESSAGE_BYTES``) and answers one over a limit itself; any other goes on
    to the SDK's app with the same body. A body that never ends is the connection's to bound: ``harness.http_bounds``
    closes it after ``BODY_TIMEOUT_S``, and this reader, seeing the client gone, answers nothing."""

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
                too_large = error(_id_of_unparsed(body, b""), INVALID_REQUEST, f"message larger than the {MAX_MESSAGE_BYTES}-byte limit: refused")
                await _answer(too_large, 413, scope, receive, send)
                return
        _, refused = refusal(body)
        if refused is not None:
            await _answer(refused, 400, scope, receive, send)
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


# The id of a message too large or too deep to parse: read only where it is certain to be the message's own, right
# after the opening brace (the Python SDK writes it there) or as the very last member (the TypeScript SDK's place).
_ID = rb'("(?:[^"\\]|\\.){0,256}"|-?\d{1,19}(?=\s*[,}]))'  # a whole string or integer, never the start of a longer number
_ID_FIRST = re.compile(rb'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*' + _ID)
_ID_LAST = re.compile(rb',\s*"id"\s*:\s*' + _ID + rb"\s*\}\s*\Z")


def _id_of_unparsed(head: bytes, tail: bytes) -> str | int | None:
    found = _ID_FIRST.match(head) or _ID_LAST.search(tail)
    return _id_of({"id": json.loads(found.group(1))}) if found else None
