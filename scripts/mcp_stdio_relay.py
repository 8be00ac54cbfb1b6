#!/usr/bin/env python3
"""A stdio MCP server that is a relay: each JSON-RPC line on stdin goes to a Streamable HTTP MCP server, each answer
comes back as a line on stdout.

The ``mcp`` mode's way for a framework's stdio MCP client to reach the runner's MCP server
(``harness.runner_side.run.servers.mcp``): the client starts this program as its server, with the endpoint in
``AGENT_BENCH_MCP_URL`` and the bearer token in ``AGENT_BENCH_MCP_TOKEN`` (environment, never the command line). It is
the standard library only (it runs on whatever interpreter the framework's environment has) and adds nothing of its
own: it never retries, never answers for the server, and keeps the transport session the server names
(``Mcp-Session-Id``). It names itself on each request (``X-Agent-Bench-Relay``: its process id), so the server can count
the stdio server processes a client started. Each request is sent on a thread of its own, so calls a client sends together run together.
When the server's connection fails before a request's answer (the server died, or dropped the connection), the relay
ends, as a stdio server that died would: its client sees its server's output end.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import threading
import urllib.parse

URL_ENV = "AGENT_BENCH_MCP_URL"
TOKEN_ENV = "AGENT_BENCH_MCP_TOKEN"
RELAY_HEADER = "X-Agent-Bench-Relay"
TIMEOUT_S = 600.0  # the relay never times a call out before its client does: the run's own timeout ends a hung one


class Relay:
    """The relay's state: the endpoint, the token, the server's transport session, and stdout shared by the threads."""

    def __init__(self, url: str, token: str) -> None:
        self.url = urllib.parse.urlsplit(url)
        self.token = token
        self.session: str | None = None
        self.protocol: str | None = None
        self._out = threading.Lock()

    def send(self, line: bytes) -> None:
        """POST one message and write every JSON-RPC message of its answer; end the process when the connection fails."""
        message = json.loads(line)
        initialize = isinstance(message, dict) and message.get("method") == "initialize"
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   RELAY_HEADER: str(os.getpid())}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        headers.update(_routing(message) or ({"MCP-Protocol-Version": self.protocol} if self.protocol else {}))
        connection = http.client.HTTPConnection(self.url.hostname or "127.0.0.1", self.url.port, timeout=TIMEOUT_S)
        try:
            connection.request("POST", self.url.path, body=line, headers=headers)
            response = connection.getresponse()
            if initialize:
                self.session = response.getheader("Mcp-Session-Id")
            kind = response.getheader("Content-Type", "")
            answered = False
            if kind.startswith("text/event-stream"):
                data: list[str] = []
                for raw in response:  # one SSE line at a time, until the server ends the stream
                    text = raw.decode("utf-8").rstrip("\r\n")
                    if text.startswith("data:"):
                        data.append(text[5:].lstrip(" "))
                    elif not text and data:
                        answered |= self._write("\n".join(data), message)
                        data = []
            elif response.status != 202:
                body = response.read().decode("utf-8").strip()
                if body:
                    answered |= self._write(body, message)
            if _is_request(line) and not answered:  # the stream ended without the answer: its connection was cut
                raise http.client.IncompleteRead(b"", None)
        except (OSError, http.client.HTTPException) as exc:
            print(f"mcp_stdio_relay: the server's connection failed ({type(exc).__name__}: {exc}): ending", file=sys.stderr, flush=True)
            os._exit(1)
        finally:
            connection.close()

    def _write(self, text: str, request: object) -> bool:
        """Write one message of the server's; whether it is the answer to ``request`` (its id)."""
        message = json.loads(text)
        if isinstance(message, dict) and isinstance(message.get("result"), dict) and "protocolVersion" in message["result"]:
            self.protocol = message["result"]["protocolVersion"]
        with self._out:
            sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
            sys.stdout.flush()
        return isinstance(message, dict) and isinstance(request, dict) and "method" not in message and message.get("id") == request.get("id")


def main() -> int:
    url, token = os.environ.get(URL_ENV), os.environ.get(TOKEN_ENV)
    if not url or not token:
        print(f"mcp_stdio_relay: set {URL_ENV} and {TOKEN_ENV}", file=sys.stderr)
        return 2
    relay = Relay(url, token)
    threads = []
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        thread = threading.Thread(target=relay.send, args=(line,), daemon=True)
        thread.start()
        threads.append(thread)
        if not _is_request(line) or b'"initialize"' in line:  # the initialize, and every notification, in order
            thread.join()
    for thread in threads:
        thread.join()
    return 0


MODERN_VERSION_META = "io.modelcontextprotocol/protocolVersion"
NAME_BEARING = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def _routing(message: object) -> dict[str, str]:
    """The Streamable HTTP routing headers of a message of the stateless protocol (a version in its ``_meta``, no
    session): the version, the method and, for a call, the name, as an HTTP client of that protocol sends them."""
    if not isinstance(message, dict) or not isinstance(params := message.get("params"), dict):
        return {}
    meta = params.get("_meta")
    version = meta.get(MODERN_VERSION_META) if isinstance(meta, dict) else None
    if not isinstance(version, str) or not isinstance(method := message.get("method"), str):
        return {}
    headers = {"MCP-Protocol-Version": version, "Mcp-Method": method}
    if isinstance(name := params.get(NAME_BEARING.get(method, "")), str):
        headers["Mcp-Name"] = name
    return headers


def _is_request(line: bytes) -> bool:
    """Whether a line is a request (it has an id): the one kind of message that may run beside others."""
    try:
        message = json.loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and "id" in message and "method" in message


if __name__ == "__main__":
    sys.exit(main())
