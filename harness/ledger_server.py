"""The runner's end of the ledger (``harness.ledger`` says what the ledger is): the entries counted in the runner's
memory, and the server that binds each channel of a column process to a run and a driver step.

It lives beside ``harness.ledger``, not under ``runner_side``, because a driver run outside the runner (a test driving
a column directly) keeps a private one in its own process.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from pathlib import Path
from typing import Any

from handwritten.canonical import canonical_json
from harness.ledger import _COUNT_FIELDS, _MAX_MESSAGE, EFFECT, LedgerConnector, LedgerStore
from harness.paths import PLAIN_NAME

MAX_CHANNELS = 64
"""Channels open at once on one server: each is a descriptor and a thread of the runner's. A column needs one per worker
and one per MCP server it forks; a closed channel frees its place."""
MAX_LINE = 4 << 20
"""A request on a channel, in bytes: an effect's payload is a scripted call's arguments (a scenario file is at most
1 MiB). A longer line closes the channel unread."""
MAX_ENTRIES = 200_000
MAX_PAYLOAD_BYTES = 256 << 20
"""What one column process may append in all (entries, payload bytes): a 1,000-turn scenario appends a few thousand
entries; past either bound an append is refused (the tool's run then fails), never half-kept."""
MAX_REFUSALS = 1000


class Entries:
    """The runner's ledger, in its own memory: entries are only ever appended, and every count is computed here.

    The same queries as ``LedgerStore``; a ``LedgerServer`` journals every entry to a file too, but never reads it back:
    what a column did to that file (nothing, when it cannot reach it) cannot change a count."""

    def __init__(self) -> None:
        self._rows: list[tuple[str, int, str, str, str, Any]] = []  # (run, step, call id, kind, tool, payload)
        self._lock = threading.Lock()  # one server thread per channel
        self.payload_bytes = 0
        """The payloads' size in all, as canonical JSON: what the server bounds (``MAX_PAYLOAD_BYTES``)."""

    def __len__(self) -> int:
        return len(self._rows)

    def append(self, run: str, step: int, kind: str, call_id: str, tool: str, payload: Any) -> None:
        if kind not in _COUNT_FIELDS:
            raise ValueError(f"unknown ledger entry kind {kind!r}")
        if not isinstance(call_id, str) or not isinstance(tool, str):
            raise ValueError("a call id and a tool are strings")
        text = canonical_json(payload)
        with self._lock:
            self._rows.append((run, step, call_id, kind, tool, json.loads(text)))
            self.payload_bytes += len(text)

    def _of(self, run: str) -> list[tuple[str, int, str, str, str, Any]]:
        with self._lock:
            return [row for row in self._rows if row[0] == run]

    def effects_of(self, run: str, tool: str) -> list[Any]:
        """Committed effects of one tool in one run, in commit order."""
        return [payload for _, _, _, kind, t, payload in self._of(run) if kind == EFFECT and t == tool]

    def effects_at(self, run: str, step: int) -> dict[str, list[Any]]:
        """Per call id the effects committed at one driver step, in commit order: what the tool ran with."""
        out: dict[str, list[Any]] = {}
        for _, s, call_id, kind, _, payload in self._of(run):
            if s == step and kind == EFFECT:
                out.setdefault(call_id, []).append(payload)
        return dict(sorted(out.items()))

    def entries(self, run: str) -> list[dict[str, Any]]:
        """Every entry of one run in commit order (step, call id, kind, tool, payload)."""
        return [{"step": s, "call_id": c, "kind": k, "tool": t, "payload": p} for _, s, c, k, t, p in self._of(run)]

    def counts(self, run: str, through_step: int | None = None) -> dict[str, dict[str, Any]]:
        """Per call id: its tool, tool entries, executor entries and effects, up to and including a driver step."""
        counts: dict[str, dict[str, Any]] = {}
        for _, s, call_id, kind, tool, _ in self._of(run):
            if through_step is None or s <= through_step:
                entry = counts.setdefault(call_id, {"tool": tool, "tool_entries": 0, "executor_entries": 0, "effects": 0})
                entry[_COUNT_FIELDS[kind]] += 1
        return dict(sorted(counts.items()))




class LedgerServer:
    """The runner's end of one column process's ledger: an inherited socket pair, no address anybody can find.

    The column process gets one end of a ``SOCK_SEQPACKET`` socket pair (``column_fd``, inherited through
    ``pass_fds``): the *connector*. On it a process of the column asks for a channel bound to a run and a driver step
    (``open``) and gets back, as a passed descriptor, one end of a new stream socket pair whose other end this server
    reads; every append on that channel is tagged with that run and step by this server, never by the column. Runs and
    steps only move forward: a run once left, or a step once passed, cannot be opened again, and a channel of a step
    that has ended appends nothing more, so a column can add to its current step only, and remove nothing ever. A
    server serves one column: another column's entries are in another server. Entries are counted in memory
    (``Entries``) and journaled to ``journal``, a file the runner writes and never reads back."""

    def __init__(self, journal: Path, *, continued: bool = False) -> None:
        self.store = Entries()
        journal.touch(mode=0o600)  # the runner's alone: a column user cannot even read it (SQLite's -wal and -shm copy the mode)
        self._journal = LedgerStore(journal)
        if continued:  # a driver's private ledger (a test playing a scenario again on one scratch directory), never the runner's
            for entry in self._journal.all_entries():
                self.store.append(*entry)
        self._here, self._there = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._current: tuple[str, int] | None = None
        self._ended: set[str] = set()
        self._channels: list[socket.socket] = []
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._serve_connector, name="ledger", daemon=True)]
        self.refusals = 0
        self.journal_failed: str | None = None
        """Why an entry counted in memory could not be journaled (a full disk), if one could not."""
        self.refused: list[str] = []
        """What a column asked for and was refused (a run or step that had ended, an unknown operation): for a test
        to tell "blocked" from "never tried"."""

    def sharing(self, journal: Path) -> LedgerServer:
        """Another server onto the same counts (``store``), with a connector and a journal of its own: for a process that
        is part of the column's runs without being the column's (the runner's MCP server of the ``mcp`` mode,
        ``harness.runner_side.run.servers.mcp``). Its channels are bound to the runs and steps it opens, which move forward
        on their own."""
        other = LedgerServer(journal)
        other.store = self.store
        return other

    @property
    def column_fd(self) -> int:
        """The descriptor to pass to the column process (``pass_fds``). This process keeps its copy, which nothing else
        inherits (``close_fds``), for ``connector`` and until the server ends."""
        return self._there.fileno()

    def connector(self) -> LedgerConnector:
        """A connector in this very process (a driver keeping a private ledger, a test): the column's end itself."""
        return LedgerConnector(self._there)

    def __enter__(self) -> LedgerServer:
        self._threads[0].start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            sockets = [self._here, *self._channels]
        for sock in sockets:  # wakes every thread blocked reading it
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for thread in list(self._threads):
            if thread.is_alive():
                thread.join(5)
        for sock in [*sockets, self._there]:
            sock.close()
        self._journal.close()

    # -- the connector -------------------------------------------------------------------------------------------------
    def _serve_connector(self) -> None:
        while True:
            try:
                message = self._here.recv(_MAX_MESSAGE)
            except OSError:
                return
            if not message:
                return
            answer, channel, body = self._connector_answer(message)
            mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM) if body is not None else (None, channel)
            try:
                data = json.dumps(answer).encode("utf-8")
                if theirs is not None:
                    socket.send_fds(self._here, [data], [theirs.fileno()])
                else:
                    self._here.send(data)
                if mine is not None and body is not None:
                    with contextlib.suppress(OSError):  # that reader went away (killed): the connector serves on
                        mine.sendall(body)  # the reader has the other end now
            except OSError:
                return  # the connector itself is gone: the column process ended
            finally:
                for sock in (theirs, mine):
                    if sock is not None:
                        sock.close()

    def _connector_answer(self, message: bytes) -> tuple[dict[str, Any], socket.socket | None, bytes | None]:
        """A connector request's answer (with the request's id), the channel it passes, if any, and the body that
        follows on a socket of its own, if any (a run's counts can outgrow one datagram)."""
        request: Any = None
        try:
            request = json.loads(message)
            match request.get("op") if isinstance(request, dict) else None:
                case "open":
                    return {"ok": True, "id": request.get("id")}, self._open(request["run"], request["step"]), None
                case "counts":
                    counts = self.store.counts(_run_key(request["run"]), int(request["step"]))
                    return {"ok": True, "id": request.get("id")}, None, json.dumps(counts).encode("utf-8")
                case other:
                    raise ValueError(f"the connector offers open and counts only, not {other!r}")
        except Exception as exc:  # a bad request is refused, never applied
            why = f"{type(exc).__name__}: {exc}"
            self._refuse(why)
            return {"ok": False, "error": why, "id": request.get("id") if isinstance(request, dict) else None}, None, None

    def _open(self, run: Any, step: Any) -> socket.socket:
        """A new channel bound to (``run``, ``step``): the column's end, to send; this server reads the other."""
        run = _run_key(run)
        if not isinstance(step, int) or isinstance(step, bool) or step < 0:
            raise ValueError(f"a driver step is a number from 0, not {step!r}")
        with self._lock:
            if run in self._ended:
                raise ValueError(f"run {run!r} has ended: it cannot be opened again")
            if self._current is not None and self._current[0] == run and step < self._current[1]:
                raise ValueError(f"step {step} of run {run!r} has ended (the run is at step {self._current[1]})")
            if self._current is not None and self._current[0] != run:
                self._ended.add(self._current[0])
            if len(self._channels) >= MAX_CHANNELS:  # each is a descriptor and a thread of the runner's
                raise ValueError(f"{MAX_CHANNELS} channels are open already: close one first")
            self._current = (run, step)
            mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            self._channels.append(mine)
            thread = threading.Thread(target=self._serve_channel, args=(mine, run, step), name="ledger-channel", daemon=True)
            self._threads.append(thread)
        thread.start()
        return theirs

    # -- a channel -----------------------------------------------------------------------------------------------------
    def _serve_channel(self, sock: socket.socket, run: str, step: int) -> None:
        stream = sock.makefile("rwb")
        try:
            while line := stream.readline(MAX_LINE + 1):
                if len(line) > MAX_LINE:  # never held whole: the channel is closed
                    self._refuse(f"a request of more than {MAX_LINE} bytes: the channel was closed")
                    break
                try:
                    answer = self._answer(json.loads(line), run, step)
                except Exception as exc:  # a bad request is refused, never applied
                    answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
                    self._refuse(answer["error"])
                stream.write((json.dumps(answer) + "\n").encode("utf-8"))
                stream.flush()
        except (OSError, ValueError):
            pass  # the worker died (a kill fault, a stopped run): what it appended is already counted
        finally:
            with contextlib.suppress(OSError):
                stream.close()
            with self._lock:  # a closed channel holds nothing of the runner's
                if sock in self._channels:
                    self._channels.remove(sock)
                    sock.close()
                self._threads.remove(threading.current_thread())

    def _refuse(self, why: str) -> None:
        """Keep a refusal for a test to read (the first ``MAX_REFUSALS``; a flood of them is counted, not kept)."""
        self.refusals += 1
        if len(self.refused) < MAX_REFUSALS:
            self.refused.append(why)

    def _answer(self, request: dict[str, Any], run: str, step: int) -> dict[str, Any]:
        match request.get("op") if isinstance(request, dict) else None:
            case "append":
                with self._lock:
                    if self._current != (run, step):
                        raise ValueError(f"step {step} of run {run!r} has ended: nothing more is appended to it")
                    if len(self.store) >= MAX_ENTRIES or self.store.payload_bytes >= MAX_PAYLOAD_BYTES:
                        raise ValueError(f"the ledger holds {MAX_ENTRIES} entries or {MAX_PAYLOAD_BYTES >> 20} MiB of payloads already")
                    self.store.append(run, step, request["kind"], request["call_id"], request["tool"], request["payload"])
                try:  # counted: the journal is the runner's record of it, never the truth, and never the tool's failure
                    self._journal.append(run, step, request["kind"], request["call_id"], request["tool"], request["payload"])
                except Exception as exc:
                    self.journal_failed = f"{type(exc).__name__}: {exc}"
                return {"ok": True}
            case "effects_of":
                return {"ok": True, "effects": self.store.effects_of(run, request["tool"])}
            case "counts":
                return {"ok": True, "counts": self.store.counts(run, int(request["step"]))}
            case other:
                raise ValueError(f"the ledger offers append, effects_of and counts only, not {other!r}")


def _run_key(run: Any) -> str:
    """A run key as the runner names runs (``<mode>/<scenario>[@<schedule>][.again]``): plain names joined by '/'."""
    if not isinstance(run, str) or not run or not all(PLAIN_NAME.fullmatch(part) for part in run.split("/")):
        raise ValueError(f"not a run key: {run!r}")
    return run


