"""What the attack tests drive: the server as a process (stdio or Streamable HTTP), raw requests, the human's side.

Everything here talks to ``scripts/serve_mcp.py`` and ``scripts/approve_mcp.py`` as programs, the way a hostile
local client and the human would: raw JSON-RPC lines over stdio, raw HTTP requests, the official SDK's client.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.columns import ROOT
from harness.ledger import ledger_counts

SERVE = ROOT / "scripts" / "serve_mcp.py"
APPROVE = ROOT / "scripts" / "approve_mcp.py"
KEY_META = "agent-framework-bench/idempotency_key"
TRANSFER = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 500}
MODERN = "2026-07-28"  # the protocol version the official client negotiates by default
_CLIENT_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "attacker", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def serve_command(state: Path, *extra: str, session: str | None = "s1") -> list[str]:
    return [sys.executable, str(SERVE), "--state-dir", str(state), *(["--session", session] if session else []), *extra]


def run_script(argv: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False)


def approve(state: Path, *args: str, session: str = "s1") -> subprocess.CompletedProcess[str]:
    return run_script([sys.executable, str(APPROVE), "--state-dir", str(state), "--session", session, *args])


def pending_ids(state: Path, session: str = "s1") -> list[str]:
    done = approve(state, session=session)
    assert done.returncode == 0, done.stderr
    return [line.split()[0] for line in done.stdout.splitlines() if line.strip()]


def effects(state: Path, tool: str, session: str = "s1") -> dict[str, int]:
    """Committed effects of ``tool`` per call id in the session's own ledger."""
    path = state / session / "ledger.sqlite"
    if not path.exists():
        return {}
    return {cid: c["effects"] for cid, c in ledger_counts(str(path)).items() if c["tool"] == tool and c["effects"]}


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    """The single line a refused command prints: no traceback, exit status 2."""
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr[-2000:])
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    return lines[0]


# -- raw JSON-RPC over stdio ---------------------------------------------------------------------------------


class RawStdio:
    """A server over stdio fed raw lines, as a hostile client that owns the pipe would."""

    def __init__(self, state: Path, session: str = "s1") -> None:
        self.process = subprocess.Popen(serve_command(state, session=session), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.send(
            {"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "attacker", "version": "1"}}}
        )  # fmt: skip
        assert self.reply()["id"] == 0
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any] | None = None, raw: bytes | None = None) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((raw if raw is not None else json.dumps(message).encode()) + b"\n")
        self.process.stdin.flush()

    def reply(self, timeout: float = 20) -> dict[str, Any]:
        """The next message the server writes; fails on silence."""
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        assert ready, f"no reply within {timeout} s"
        line = self.process.stdout.readline()
        assert line, f"the server closed its output: {self.stderr()}"
        return dict(json.loads(line))

    def call(self, request_id: int, tool: str, arguments: Any, key: str | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        if key is not None:
            params["_meta"] = {KEY_META: key}
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
        return self.reply()

    def stderr(self) -> str:
        self.close()
        assert self.process.stderr is not None
        return self.process.stderr.read().decode(errors="replace")

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# -- Streamable HTTP -----------------------------------------------------------------------------------------


@dataclass
class HttpServer:
    process: subprocess.Popen[bytes]
    port: int
    state: Path
    last_session: str | None = None  # the Mcp-Session-Id of the last response that named one

    @property
    def session(self) -> str:
        """The session the server serves: the one it was given, else the one it made and wrote down."""
        return (self.state / "session").read_text().strip()

    @property
    def token(self) -> str:
        """The bearer token the server wrote for its clients ('' if it wrote none)."""
        path = self.state / "http-token"
        return path.read_text() if path.exists() else ""  # the file's bytes are the token: no newline to strip

    def post(self, body: bytes, headers: dict[str, str]) -> tuple[int, str, dict[str, Any] | None]:
        """(HTTP status, raw body, the JSON-RPC message in it if any) of one POST on a connection of its own."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request("POST", "/mcp", body=body, headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
            response = connection.getresponse()
            text = response.read().decode(errors="replace")
            self.last_session = response.getheader("mcp-session-id")
        finally:
            connection.close()
        return response.status, text, _jsonrpc(text)

    def call(
        self, tool: str, arguments: Any, *, token: str | None, meta: dict[str, Any] | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, str, dict[str, Any] | None]:
        """A ``tools/call`` as the official client sends it at the 2026-07-28 protocol version (no handshake)."""
        params = {"name": tool, "arguments": arguments, "_meta": {**_CLIENT_META, **(meta or {})}}
        body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}).encode()
        sent = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": tool, **(headers or {})}
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        return self.post(body, sent)

    def legacy_session_call(self, tool: str, arguments: Any) -> tuple[int, dict[str, Any] | None]:
        """Open a transport session as a 2025-11-25 client does (``initialize``: the server names the session in
        ``Mcp-Session-Id``), then call ``tool`` in it and leave the session open: the initialize's HTTP status, and the
        call's reply (None when no session was opened)."""
        auth = {"Authorization": f"Bearer {self.token}"}
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
        status, _, _ = self.post(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}).encode(), auth)
        session = self.last_session
        if status != 200 or not session:
            return status, None
        headers = {**auth, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
        self.post(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(), headers)
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
        return status, self.post(json.dumps(call).encode(), headers)[2]

    def open_descriptors(self) -> int:
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def http_server(state: Path, session: str | None = "s1") -> Iterator[HttpServer]:
    """``serve_mcp.py --http`` on a free loopback port until the block ends (``session`` None: the server's own choice)."""
    port = free_port()
    process = subprocess.Popen(serve_command(state, "--http", str(port), session=session), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else "exited"
            assert time.monotonic() < deadline, "the HTTP server did not listen"
            time.sleep(0.05)
        yield HttpServer(process, port, state)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _jsonrpc(text: str) -> dict[str, Any] | None:
    """The JSON-RPC message of a response body: JSON, or the data of an SSE event."""
    for candidate in [text, *(line[5:].strip() for line in text.splitlines() if line.startswith("data:"))]:
        try:
            message = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(message, dict) and "jsonrpc" in message:
            return message
    return None


def structured(message: dict[str, Any] | None) -> dict[str, Any]:
    """A tool result's ``structuredContent`` from a JSON-RPC reply."""
    assert message is not None and "result" in message, message
    return dict(message["result"]["structuredContent"])
