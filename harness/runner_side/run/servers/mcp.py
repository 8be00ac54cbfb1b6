"""The runner's MCP server for a column process's ``mcp`` mode: started, watched and started again by the runner.

One ``McpHost`` per column process that plays ``mcp``. It holds a listening socket on 127.0.0.1 (an ephemeral port) and
runs the server (``harness.column_side.mcp.served``, started by name: the runner imports nothing of the column's side)
as a child of the runner on it, with the column's bearer token on its stdin, a ledger
connector of its own onto the column process's ledger (``LedgerServer.sharing``: the same counts, the server's
channels bound by the runner to the run and step its requests name) and a pipe on which it says why it is about to die.
The state directory is the runner's (``0700``), outside the column's scratch directory: no column process can read a
session's records, its grant key or the requests log.

When the server dies, a watcher thread starts it again on the same socket (a client's new connection waits in the
backlog meanwhile, as for a service its supervisor restarts). The server says on its event pipe why it is about to die:
- an MCP fault killed it after an effect (``mcp.kill_after_effect``): at once;
- a kill fault in a tool fired (the process running the tool dies, and the system under test with it): the server
  stops where it is, the call's connection still open, and the column process's supervisor is told to kill that step's
  worker (``harness.column_side.driver``, on the channel whose other end the column process inherits: ``column_fd``);
  once it has, this host kills the server, closes unread the connections the dead worker left in the backlog, and
  starts a new server (nothing the dead client sent can run after its death, and no client saw the server go first).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import select
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from harness.columns import ROOT
from harness.ledger_server import LedgerServer
from harness.runner_side.run.sandbox import clean_environment

_BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from harness.column_side.mcp.served import main; sys.exit(main(sys.argv[2:]))"
START_TIMEOUT_S = 60.0
KILL_ACK_TIMEOUT_S = 30.0  # how long the column's supervisor may take to kill a worker and say so


class McpHost:
    """A context manager: the server runs (and is started again when it dies) from ``__enter__`` to ``__exit__``."""

    def __init__(self, scenarios_dir: Path, state_dir: Path, ledger: LedgerServer) -> None:
        self._scenarios_dir = scenarios_dir
        self.state_dir = state_dir
        self._ledger = ledger
        self.token = secrets.token_urlsafe(32)
        self.errors: list[str] = []
        """What went wrong in the host itself (a server that would not start, a worker not killed): a harness failure."""
        self.restarts: list[dict[str, Any]] = []
        """Each server death and restart: ``{"event", "run", "step"}`` (timings, never evidence)."""
        self._stopping = threading.Event()
        self._process: subprocess.Popen[bytes] | None = None
        self._thread: threading.Thread | None = None

    # -- what the column process gets ----------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        """``<base>/mcp/<key>/<step>/mcp`` is a worker's endpoint."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def column_fd(self) -> int:
        """The column process's end of the kill channel (``pass_fds``)."""
        return self._theirs.fileno()

    def requests(self, run: str) -> list[dict[str, Any]]:
        """What the server recorded for ``run`` (``mcp/<key>``): each request and answer, and the human's side applied."""
        path = self.state_dir / run.replace("/", "__") / "requests.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    # -- the server's life ---------------------------------------------------------------------------------------------
    def __enter__(self) -> McpHost:
        self.state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.state_dir, 0o700)
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(128)
        self.port = self._socket.getsockname()[1]
        self._mine, self._theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._events_r, self._events_w = os.pipe()
        self._server_ledger = self._ledger.sharing(self.state_dir / "ledger.sqlite").__enter__()
        self._process = self._start()
        self._thread = threading.Thread(target=self._watch, name="mcp-host", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        if self._process is not None and self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if self._thread is not None:
            self._thread.join(10)
        self._server_ledger.__exit__(None, None, None)
        for sock in (self._socket, self._mine, self._theirs):
            sock.close()
        for fd in (self._events_r, self._events_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _start(self) -> subprocess.Popen[bytes]:
        fds = (self._socket.fileno(), self._server_ledger.column_fd, self._events_w)
        command = [sys.executable, "-I", "-c", _BOOT, str(ROOT), "--socket-fd", str(fds[0]), "--ledger-fd", str(fds[1]),
                   "--events-fd", str(fds[2]), "--scenarios", str(self._scenarios_dir), "--state-dir", str(self.state_dir)]  # fmt: skip
        with open(self.state_dir / "server.log", "ab") as log:  # what a server that failed said, for the error
            process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log, pass_fds=fds,
                                       env=clean_environment(self.state_dir), cwd=self.state_dir, start_new_session=True)  # fmt: skip
        assert process.stdin is not None
        process.stdin.write(self.token.encode() + b"\n")
        process.stdin.close()
        return process

    def _watch(self) -> None:
        """Start the server again each time it dies, until the host ends. A server about to die says why on its event
        pipe first: ``server_kill`` (an MCP fault: it exits), ``tool_kill`` (a kill fault in a tool: it stops where it
        is, holding the call's connection open, until the step's worker is dead; then this thread ends it)."""
        while not self._stopping.is_set():
            process = self._process
            assert process is not None
            event = self._next_event(process)
            if self._stopping.is_set():
                return
            if event is not None and event["event"] == "tool_kill":
                if not self._kill_worker(event):
                    return
                process.kill()  # the worker is dead: nothing it sent can reach a server any more
                process.wait()
                self._drain_backlog()
            elif event is None or event["event"] != "server_kill":  # a death no fault announced: the harness's failure
                said = (self.state_dir / "server.log").read_text(encoding="utf-8", errors="replace")[-2000:]
                self.errors.append(f"the MCP server exited with {process.returncode}: {said.strip()}")
                return
            code = process.wait()
            self.restarts.append({**event, "code": code})
            self._process = self._start()

    def _next_event(self, process: subprocess.Popen[bytes]) -> dict[str, Any] | None:
        """The next event the server writes, or None when it exits without one (or the host ends)."""
        while not self._stopping.is_set():
            if select.select([self._events_r], [], [], 0.05)[0]:
                line = self._read_line()
                return json.loads(line) if line else None
            if process.poll() is not None and not select.select([self._events_r], [], [], 0)[0]:
                return None
        return None

    def _read_line(self) -> bytes:
        """One line of the event pipe (the server writes each event whole, in one write)."""
        data = b""
        while not data.endswith(b"\n"):
            chunk = os.read(self._events_r, 1)
            if not chunk:
                break
            data += chunk
        return data.strip()

    def _kill_worker(self, event: dict[str, Any]) -> bool:
        """Ask the column's supervisor to kill the worker of ``event``'s run and step, and wait until it says it did."""
        try:
            self._mine.sendall((json.dumps({"kill": event["run"], "step": event["step"]}) + "\n").encode())
            self._mine.settimeout(KILL_ACK_TIMEOUT_S)
            answer = self._mine.recv(1 << 12)
        except OSError as exc:
            self.errors.append(f"the column process did not kill the worker of {event['run']} step {event['step']}: {exc}")
            return False
        if not answer.startswith(b"killed"):
            self.errors.append(f"the column process answered {answer[:80]!r} to the kill of {event['run']} step {event['step']}")
            return False
        return True

    def _drain_backlog(self) -> None:
        """Close, unread, every connection waiting in the backlog: the dead worker's (nothing else is running)."""
        self._socket.setblocking(False)
        try:
            while True:
                try:
                    connection, _ = self._socket.accept()
                except BlockingIOError:
                    return
                connection.close()
        finally:
            self._socket.setblocking(True)
