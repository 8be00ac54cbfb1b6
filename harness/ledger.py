"""The side-effect ledger: the observer's ground truth, kept out of the measured column's reach.

Per call id it counts three things separately, each its own commit: tool entries
(somebody called the tool function), executor entries (the body that makes the side
effect started) and committed effects. No engine or adapter may read it to decide an
outcome.

The ledger of a comparison is kept by the runner's process, never by a column's (``harness.ledger_server``, a server
per column process): the column process inherits one end of a socket pair (no path to find, no address on a command line, the
same whether the run is root's or not), on which each of its workers asks for a channel bound by the runner to its run
and driver step (``LedgerConnector.open``); the fixture tools in the worker append through a ``LedgerClient`` on that
channel. Each append is one JSON line answered only after the runner has counted it (a synchronous, acknowledged
write), so an effect is counted before the tool returns and a kill right after it still counts. The protocol offers
appending, reading one tool's committed effects (the fixture world derives balances from them) and a read-only copy
of a run's counts (for a column's own explanations), nothing else: no column can delete or edit an entry, name
another column, or reach back into a run or step that has ended. The runner counts what it received in its own
memory (``Entries``); the SQLite file beside it is a journal it writes and never reads back.

Unit tests that build a fixture world by hand, outside any supervised worker, get a
``LocalLedger``: the same store, in a file of their own.
"""

from __future__ import annotations

import json
import os
import socket
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

    def all_entries(self) -> list[tuple[str, int, str, str, str, Any]]:
        """Every entry of every run in commit order, as ``append`` takes it (run, step, kind, call id, tool, payload)."""
        with self._lock:
            rows = self._conn.execute("SELECT run, step, kind, call_id, tool, payload FROM ledger ORDER BY seq").fetchall()
        return [(r, s, k, c, t, json.loads(p)) for r, s, k, c, t, p in rows]

    def effects_of(self, run: str, tool: str) -> list[Any]:
        """Committed effects of one tool in one run, in commit order."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT payload FROM ledger WHERE run = ? AND kind = ? AND tool = ? ORDER BY seq", (run, EFFECT, tool)
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

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


_MAX_MESSAGE = 1 << 16  # a connector's request or answer (a run key and a step): small, one datagram each


class LedgerConnector:
    """A column's end of the connector: asks the runner for a channel bound to a run and a step, or reads counts.

    The supervisor (between steps), each worker (when it starts) and a worker about to fork its MCP server share it,
    one after the other; but a worker killed between its request and the answer leaves that answer behind. So each
    request carries an id of its own and an answer to another id is dropped, its descriptor closed."""

    def __init__(self, sock: socket.socket) -> None:
        self._socket = sock

    @staticmethod
    def from_fd(fd: int) -> LedgerConnector:
        """The connector a column process inherited as descriptor ``fd``."""
        return LedgerConnector(socket.socket(fileno=fd))

    def _ask(self, request: dict[str, Any]) -> tuple[dict[str, Any], list[int]]:
        asked = os.urandom(8).hex()
        self._socket.send(json.dumps({**request, "id": asked}).encode("utf-8"))
        while True:
            data, fds, _, _ = socket.recv_fds(self._socket, _MAX_MESSAGE, 1)
            if not data:
                raise ConnectionError("the ledger server closed the connector")
            answer: dict[str, Any] = json.loads(data)
            if answer.get("id") == asked:
                break
            for fd in fds:  # the answer to a request whose asker was killed before it came
                os.close(fd)
        if not answer["ok"]:
            for fd in fds:
                os.close(fd)
            raise RuntimeError(f"the ledger refused: {answer['error']}")
        return answer, fds

    def open(self, run: str, step: int) -> socket.socket:
        """A new channel bound to ``run`` and ``step`` (the runner's binding; the channel cannot name another)."""
        _, fds = self._ask({"op": "open", "run": run, "step": step})
        if len(fds) != 1:
            raise ConnectionError("the ledger server sent no channel")
        return socket.socket(fileno=fds[0])

    def counts(self, run: str, through_step: int) -> dict[str, dict[str, Any]]:
        """A read-only copy of a run's counts, for a column's own explanations; the runner never uses it."""
        _, fds = self._ask({"op": "counts", "run": run, "step": through_step})
        with socket.socket(fileno=fds[0]) as stream:
            body = b"".join(iter(lambda: stream.recv(1 << 16), b""))
        counts: dict[str, dict[str, Any]] = json.loads(body)
        return counts


@dataclass(frozen=True)
class Binding:
    """Where a worker's fixture tools append: the connector, the run and the driver step a channel is opened for."""

    connector: LedgerConnector
    run: str
    step: int


class LedgerClient:
    """A worker's end of a channel bound to its run and step: every append waits for the server's acknowledgement."""

    def __init__(self, channel: socket.socket) -> None:
        self._socket = channel
        self._file = channel.makefile("rwb")
        self._lock = threading.Lock()  # a framework may run tools in threads

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._file.write((json.dumps(request) + "\n").encode("utf-8"))
            self._file.flush()
            line = self._file.readline()
        if not line:
            raise ConnectionError("the ledger server closed the channel")
        answer: dict[str, Any] = json.loads(line)
        if not answer["ok"]:
            raise RuntimeError(f"the ledger refused: {answer['error']}")
        return answer

    def record(self, kind: str, call_id: str, tool: str, payload: Any) -> None:
        self._ask({"op": "append", "kind": kind, "call_id": call_id, "tool": tool, "payload": json.loads(canonical_json(payload))})

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
_channel: socket.socket | None = None


def bind_worker(binding: Binding | None, channel: socket.socket | None = None) -> None:
    """Called in a fresh worker, before the column's code runs: where its effects go. The worker opens its own channel
    for its run and step on the connector (or is handed one: a server forked for the step gets one its worker opened
    for it)."""
    global _bound, _channel
    _bound = binding
    _channel = channel if channel is not None else binding.connector.open(binding.run, binding.step) if binding is not None else None


def current_binding() -> Binding | None:
    """The binding of this worker (None outside a supervised worker): a program the worker starts for the same
    driver step (the MCP server) is handed a channel opened on it, so its effects count in the step too."""
    return _bound


def worker_ledger(scratch: Path) -> LedgerClient | LocalLedger:
    """The ledger of this process: the runner's channel in a supervised worker, else a local file."""
    return LedgerClient(_channel) if _channel is not None else LocalLedger(scratch / "ledger.sqlite")


def ledger_counts(path: str) -> dict[str, dict[str, Any]]:
    """The counts of a local ledger file (read-only; a missing file means nothing happened)."""
    if not os.path.exists(path):
        return {}
    store = LedgerStore(Path(path))
    try:
        return store.counts(LocalLedger.RUN)
    finally:
        store.close()
