"""A host's bridge for clients that cannot send a header: forwards every request to the server with its bearer token.

The MCP conformance suite's server mode takes a URL and nothing else, so it cannot send ``Authorization``; hosts in the
same position reach an authenticated server through a bridge that adds the header (``mcp-remote --header``, for
instance). This one forwards method, path, query, body and every header as sent (``Host`` and ``Origin`` too, so the
server's DNS-rebinding checks still see what the client sent), adds ``Authorization: Bearer <token>`` and streams the
answer back (SSE included). It runs in a thread of the test process on a free loopback port.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx2
import uvicorn
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

_HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "content-length"}


class AuthProxy:
    """An ASGI app forwarding to ``target`` (``http://127.0.0.1:PORT``) with ``Authorization: Bearer <token>`` added."""

    def __init__(self, target: str, token: str) -> None:
        self._target = target
        self._token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP | {"authorization"}]
        headers.append(("authorization", f"Bearer {self._token}"))
        client = httpx2.AsyncClient(timeout=None)
        upstream = await client.send(
            client.build_request(request.method, f"{self._target}{request.url.path}", params=request.url.query, headers=headers, content=await request.body()),
            stream=True,
        )

        async def close() -> None:
            await upstream.aclose()
            await client.aclose()

        answer = {k: v for k, v in upstream.headers.items() if k.lower() not in _HOP_BY_HOP}
        await StreamingResponse(upstream.aiter_raw(), status_code=upstream.status_code, headers=answer, background=BackgroundTask(close))(scope, receive, send)


@contextmanager
def auth_proxy(target: str, token: str) -> Iterator[str]:
    """The proxy's base URL (``http://127.0.0.1:PORT``) while the block runs."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(AuthProxy(target, token), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the proxy did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
