"""The MCP server's Streamable HTTP against a body that never ends (issue 33): a client holding the bearer token sent
a request head and part of a body, and the server waited for the rest for ever, one descriptor per connection.

The server here is the one ``serve_mcp.py --http`` runs (``http_server``: the token check, the body's bounds, the
SDK's app, uvicorn with ``harness.http_bounds``), in a thread of the test on a loopback socket, with a body deadline of
one second instead of ``BODY_TIMEOUT_S`` so the test takes seconds; the head deadline is longer than the test, so only
the body's can close the connection.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import pytest

from harness.column_side.mcp.server import build_server, http_server
from harness.column_side.mcp.session import announce, new_token, open_boundary
from harness.fixture_tools import FIXTURE_TOOLS
from harness.http_bounds import ConnectionBounds
from harness.scenarios import DEFAULT_USER
from tests.harness.column_side.mcp.attack_kit import HttpServer, structured
from tests.harness.runner_side.run.test_wire_server_bounds import closed_by_server  # one definition of "the server closed it"

BOUNDS = ConnectionBounds(max_connections=32, head_timeout_s=60.0, body_timeout_s=1.0)


@contextmanager
def serving(state: Path) -> Iterator[HttpServer]:
    """The HTTP server of session s1 on a free loopback port, in a thread, until the block ends."""
    token = new_token()
    announce(state, "s1", token)  # where HttpServer reads the token
    boundary = open_boundary(state, "s1", DEFAULT_USER, list(FIXTURE_TOOLS), None)
    server = http_server(build_server(boundary), token, BOUNDS)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.02)
        yield HttpServer(cast(Any, None), sock.getsockname()[1], state)  # no process: the server is this one's thread
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@pytest.mark.parametrize(
    "framing, sent",
    [
        ("Content-Length: 1000", b'{"jsonrpc": "2.0", "id": 1, '),  # a length never reached
        ("Transfer-Encoding: chunked", b'5\r\n{"jso\r\n'),  # a chunked body never closed
    ],
    ids=["content-length", "chunked"],
)
@pytest.mark.parametrize("authorized", [True, False], ids=["token", "no-token"])
def test_a_body_that_never_ends_is_closed_after_the_body_deadline(tmp_path: Path, framing: str, sent: bytes, authorized: bool) -> None:
    """With the token (the body reaches the server's reader, which waits for the rest) or without it (answered 401 at
    once, the body still owed): the connection is closed once the body deadline passes, and a whole call is answered
    after it."""
    with serving(tmp_path) as server:
        auth = f"Authorization: Bearer {server.token}\r\n" if authorized else ""
        sock = socket.create_connection(("127.0.0.1", server.port))
        head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Content-Type: application/json\r\n"
                f"Accept: application/json, text/event-stream\r\n{framing}\r\n\r\n")  # fmt: skip
        sock.sendall(head.encode() + sent)
        started = time.monotonic()
        if not authorized:
            sock.settimeout(10)
            refusal = http.client.HTTPResponse(sock)
            refusal.begin()
            assert refusal.status == 401 and refusal.read()
        assert closed_by_server(sock, 10), "the server kept a connection whose body never ended"
        assert time.monotonic() - started >= BOUNDS.body_timeout_s - 0.2
        sock.close()
        status, _, message = server.call("get_weather", {"city": "Paris"}, token=server.token)
        assert status == 200 and structured(message)["status"] == "ok"
