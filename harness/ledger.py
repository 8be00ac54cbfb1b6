"""The side-effect ledger: the observer's ground truth, kept out of the measured column's reach.

Per call id it counts three things separately, each its own commit: tool entries
(somebody called the tool function), executor entries (the body that makes the side
effect started) and committed effects. No engine or adapter may read it to decide an
outcome.

The ledger of a comparison is a SQLite file kept by the runner's process, never by a
column's: a ``LedgerServer`` thread serves it over a Unix socket, and the fixture tools
in a column's worker append through a ``LedgerClient``. Each append is one JSON line
answered only after the entry is committed (a synchronous, acknowledged write), so an
effect is counted before the tool returns and a kill right after it still counts. The
protocol offers appending, reading one tool's committed effects (the fixture world
derives balances from them) and a read-only copy of a run's counts (for a column's own
explanations), nothing else: no column can delete or edit an entry, and the column is
never told where the file is. The runner reads each driver step's counts
from the file itself (``LedgerStore.counts``).

Unit tests that build a fixture world by hand, outside any supervised worker, get a
``LocalLedger``: the same store, in a file of their own.
"""

from __future__ import annotations

import json
import os
import socket
import socketserver
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from handwritten.canonical import canonical_json
from handwritten.storage import connect

TOOL_ENTRY = "tool_entry"
EXECUTOR_ENTRY = "executor_entry"
EFFECT = "effect"
_COUNT_FIELDS = {TOOL_ENTRY: "tool_entries", EXECUTOR_ENTRY: "executor_entries", EFFECT: "effects"}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS ledger (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    run TEXT NOT NULL,
    step INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    tool TEXT NOT NULL,
    payload TEXT NOT NULL
);
"""


class Ledger(Protocol):
    """What the fixture world needs of a ledger: append an entry, read one tool's effects."""

    def record(self, kind: str, call_id: str, tool: str, payload: Any) -> None: ...

    def effects_of(self, tool: str) -> list[Any]: ...

    def close(self) -> None: ...


class LedgerStore:
    """The ledger file: entries tagged with the run (``<mode>/<scenario>``) and the driver step."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn = connect(str(path))
        self._conn.executescript(_SCHEMA)
        self._lock = threading.Lock()  # one connection, many server threads

    def close(self) -> None:
        self._conn.close()

    def append(self, run: str, step: int, kind: str, call_id: str, tool: str, payload: Any) -> None:
        if kind not in _COUNT_FIELDS:
            raise ValueError(f"unknown ledger entry kind {kind!r}")
        if not isinstance(step, int) or step < 0:
            raise ValueError(f"a driver step is a number from 0, not {step!r}")
        with self._lock:
            self._conn.execute(
                "INSERT INTO ledger (run, step, call_id, kind, tool, payload) VALUES (?, ?, ?, ?, ?, ?)",
                (run, step, call_id, kind, tool, canonical_json(payload)),
            )

    def effects_of(self, run: str, tool: str) -> list[Any]:
        """Committed effects of one tool in one run, in commit order."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT payload FROM ledger WHERE run = ? AND kind = ? AND tool = ? ORDER BY seq", (run, EFFECT, tool)
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def effects_at(self, run: str, step: int) -> dict[str, list[Any]]:
        """Per call id the effects committed at one driver step, in commit order: what the tool ran with."""
        with self._lock:
            rows = self._conn.execute("SELECT call_id, payload FROM ledger WHERE run = ? AND step = ? AND kind = ? ORDER BY seq", (run, step, EFFECT)).fetchall()
        out: dict[str, list[Any]] = {}
        for call_id, payload in rows:
            out.setdefault(call_id, []).append(json.loads(payload))
        return dict(sorted(out.items()))

    def entries(self, run: str) -> list[dict[str, Any]]:
        """Every entry of one run in commit order (step, call id, kind, tool, payload): what an explorer checks the
        contract's properties against."""
        with self._lock:
            rows = self._conn.execute("SELECT step, call_id, kind, tool, payload FROM ledger WHERE run = ? ORDER BY seq", (run,)).fetchall()
        return [{"step": s, "call_id": c, "kind": k, "tool": t, "payload": json.loads(p)} for s, c, k, t, p in rows]

    def counts(self, run: str, through_step: int | None = None) -> dict[str, dict[str, Any]]:
        """Per call id: its tool, tool entries, executor entries and effects, up to and including a driver step."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT call_id, tool, kind, COUNT(*) FROM ledger WHERE run = ? AND step <= ? GROUP BY call_id, tool, kind",
                (run, through_step if through_step is not None else 2**62),
            ).fetchall()
        counts: dict[str, dict[str, Any]] = {}
        for call_id, tool, kind, n in rows:
            entry = counts.setdefault(call_id, {"tool": tool, "tool_entries": 0, "executor_entries": 0, "effects": 0})
            entry[_COUNT_FIELDS[kind]] = n
        return dict(sorted(counts.items()))


class _Handler(socketserver.StreamRequestHandler):
    """One client connection: JSON lines in, one JSON line out per request."""

    server: _Server

    def handle(self) -> None:
        try:
            self._serve()
        except (ConnectionResetError, BrokenPipeError):
            pass  # the worker died (a kill fault, a stopped run): what it committed is already in the file

    def _serve(self) -> None:
        for line in self.rfile:
            try:
                request = json.loads(line)
                answer = self.server.answer(request)
            except Exception as exc:  # a bad request is refused, never applied
                answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            self.wfile.write((json.dumps(answer) + "\n").encode("utf-8"))
            self.wfile.flush()


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True

    def __init__(self, address: str, store: LedgerStore) -> None:
        super().__init__(address, _Handler)
        self.store = store

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        match request.get("op"):
            case "append":
                args = (request["run"], int(request["step"]), request["kind"], request["call_id"], request["tool"], request["payload"])
                self.store.append(*args)
                return {"ok": True}
            case "effects_of":
                return {"ok": True, "effects": self.store.effects_of(request["run"], request["tool"])}
            case "counts":
                return {"ok": True, "counts": self.store.counts(request["run"], int(request["step"]))}
            case other:
                raise ValueError(f"the ledger offers append, effects_of and counts only, not {other!r}")


class LedgerServer:
    """Serves a ledger file over a Unix socket from a thread of this (the runner's) process."""

    def __init__(self, path: Path) -> None:
        self.store = LedgerStore(path)
        self._socket_dir = tempfile.mkdtemp(prefix="ledger-")  # short: a Unix socket path is at most 107 bytes
        self.address = os.path.join(self._socket_dir, "ledger.sock")
        self._server = _Server(self.address, self.store)
        self._thread = threading.Thread(target=self._server.serve_forever, name="ledger", daemon=True)

    def __enter__(self) -> LedgerServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self.store.close()
        os.unlink(self.address)
        os.rmdir(self._socket_dir)


@dataclass(frozen=True)
class Binding:
    """Where a worker's fixture tools append: the server's address, the run, the driver step."""

    address: str
    run: str
    step: int


class LedgerClient:
    """A worker's end of the channel: every append waits for the server's acknowledgement."""

    def __init__(self, binding: Binding) -> None:
        self._binding = binding
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._socket.connect(binding.address)
        self._file = self._socket.makefile("rwb")
        self._lock = threading.Lock()  # a framework may run tools in threads

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._file.write((json.dumps({**request, "run": self._binding.run}) + "\n").encode("utf-8"))
            self._file.flush()
            line = self._file.readline()
        if not line:
            raise ConnectionError("the ledger server closed the channel")
        answer: dict[str, Any] = json.loads(line)
        if not answer["ok"]:
            raise RuntimeError(f"the ledger refused: {answer['error']}")
        return answer

    def record(self, kind: str, call_id: str, tool: str, payload: Any) -> None:
        self._ask({"op": "append", "step": self._binding.step, "kind": kind, "call_id": call_id, "tool": tool, "payload": json.loads(canonical_json(payload))})

    def effects_of(self, tool: str) -> list[Any]:
        effects: list[Any] = self._ask({"op": "effects_of", "tool": tool})["effects"]
        return effects

    def counts(self, through_step: int) -> dict[str, dict[str, Any]]:
        """A read-only copy of the run's counts, for a column's own explanations; the runner never uses it."""
        counts: dict[str, dict[str, Any]] = self._ask({"op": "counts", "step": through_step})["counts"]
        return counts

    def close(self) -> None:
        self._file.close()
        self._socket.close()


class LocalLedger:
    """A ledger in a file of its own, for a fixture world built outside any supervised worker (unit tests)."""

    RUN = "local"

    def __init__(self, path: Path) -> None:
        self.path = path
        self._store = LedgerStore(path)

    def record(self, kind: str, call_id: str, tool: str, payload: Any) -> None:
        self._store.append(self.RUN, 0, kind, call_id, tool, payload)

    def effects_of(self, tool: str) -> list[Any]:
        return self._store.effects_of(self.RUN, tool)

    def close(self) -> None:
        self._store.close()


_bound: Binding | None = None


def bind_worker(binding: Binding) -> None:
    """Called by the supervisor in a fresh worker, before the column's code runs: where its effects go."""
    global _bound
    _bound = binding


def current_binding() -> Binding | None:
    """The binding of this worker (None outside a supervised worker): a program the worker starts for the same
    driver step (the MCP server) is handed it, so its effects count in the step too."""
    return _bound


def worker_ledger(scratch: Path) -> LedgerClient | LocalLedger:
    """The ledger of this process: the runner's channel in a supervised worker, else a local file."""
    return LedgerClient(_bound) if _bound is not None else LocalLedger(scratch / "ledger.sqlite")


def ledger_counts(path: str) -> dict[str, dict[str, Any]]:
    """The counts of a local ledger file (read-only; a missing file means nothing happened)."""
    if not os.path.exists(path):
        return {}
    store = LedgerStore(Path(path))
    try:
        return store.counts(LocalLedger.RUN)
    finally:
        store.close()
