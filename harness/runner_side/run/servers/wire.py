"""The scripted OpenAI-compatible server of the ``wire`` mode: the runner's, out of every column's reach.

It plays a scenario's ``model_script`` as the in-process scripted model does (the turn chosen from the request's
messages, the same text past the end of the script), over ``POST .../v1/chat/completions`` and ``POST .../v1/responses``,
plain and streamed, on 127.0.0.1 with an ephemeral port (uvicorn running a small ASGI app in a thread of the runner).
Columns share it: each column process gets a base URL with an unguessable token of its own
(``http://127.0.0.1:<port>/<token>``), and a worker asks under ``<token>/<mode>/<scenario key>/<driver step>/v1``, so
one column can neither read nor answer another's runs; any other path, an unknown token among them, is a 404.

Every request is recorded (``requests``): the turn, the API and whether it streamed, the headers that matter
(``Idempotency-Key``, the openai client's ``x-stainless-retry-count`` and ``x-stainless-read-timeout``), the tools as sent,
the messages judged as the scripted model judges them (``harness.script_log``), its size, and what was answered.
The runner reads the records after the column process ends, as it reads the ledger.

Nothing a local client sends can grow the server without a bound (``harness.http_bounds``): a connection that has not
sent a whole request head within ``HEAD_TIMEOUT_S`` (5 s) of opening or of its last answer is closed, and so is a request
whose body has not arrived whole within ``BODY_TIMEOUT_S`` (10 s) of its head; at most ``MAX_CONNECTIONS`` connections are open
at once (the server runs in the runner's process: it must leave the runner descriptors). A run is recorded only under
one of the harness's modes (``RUN_MODES``) and a known scenario, at most ``MAX_RUNS_PER_SCENARIO`` per scenario for a
column; any other path is a 404 and creates nothing. A run keeps at most ``MAX_REQUESTS_PER_RUN`` requests and
``MAX_RECORDED_BYTES_PER_RUN`` bytes of request bodies; a request past either is answered as any other, not recorded,
and counted: the last record kept says how many followed it unrecorded (``dropped_after``), so a run's evidence says
that requests were dropped, never silently.

Wire faults (``harness.scenarios.WIRE_POINTS``) are applied here, by turn, in the order the scenario lists them: a
``once`` fault takes the first request of its turn that no earlier fault took, an ``always`` fault every one. Every
answer carries ``x-scripted-turn``, from which a worker fires a ``model.kill_before_turn`` fault before its framework
reads the answer (``harness.column_side.wire.kill``).
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from handwritten.canonical import canonical_json
from harness import wire_formats as formats
from harness.http_bounds import ConnectionBounds
from harness.scenarios import SLOW_DELAY_S, Fault, Scenario
from harness.script_log import ScriptJudge

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
HEADERS = {"idempotency_key": "idempotency-key", "retry_count": "x-stainless-retry-count", "timeout": "x-stainless-read-timeout"}
"""What a request's record keeps of its headers: the idempotency key, and the openai client's attempt number and timeout."""
API_PATHS = {"chat/completions": "chat", "responses": "responses"}
WARMUP = "warmup"
"""The mode of a column process's warm-up requests (``harness.column_side.wire.warmup``): answered with a fixed text,
never a scenario's faults, and never read by the runner."""
MAX_BODY_BYTES = 8 << 20
"""A request body over this is refused (413) before it is parsed: the committed scenarios' largest is a few kilobytes."""
RUN_MODES = frozenset({"defaults", "contract", "wire", "bench", "private"})
"""The modes a run (``harness.records.run_key``) is recorded under: the harness's (``scripts/run_framework_comparison.py``;
the comparison's columns ask under ``wire``) and the overhead benchmark's (``scripts/bench_overhead_rows.py``'s
``WIRE_MODE``), and ``private``, the key of a run a driver plays outside the runner (``harness.column_side.driver``: a
test driving a column directly). A request under any other mode is a 404 and leaves nothing behind, so a column cannot make the server
keep runs under names it makes up."""
MAX_RUNS_PER_SCENARIO = 64
"""Runs one column may open per scenario: a scenario runs in each of the three modes, twice (``<key>.again``), once per
forced ordering of a race its column declares (``<scenario>@<schedule>``, a handful); 64 leaves room for all of them and
bounds what made-up schedule names can open (answered 429, nothing stored)."""
MAX_REQUESTS_PER_RUN = 2000
"""Requests one run keeps. A committed scenario's run sends a few dozen; a framework whose loop never ends sends one per
round trip until the run's timeout, and its records would grow with it. 2000 keeps every request of any run that ends
on its own; past it a request is answered as usual and counted, not kept."""
MAX_RECORDED_BYTES_PER_RUN = 64 << 20
"""Request-body bytes one run keeps records of (a record holds what its body held: tools, injected text): a bound on a
run's memory however large each request is; at least ``MAX_BODY_BYTES``, so a run's first request is always kept."""
MAX_CONNECTIONS = 256
"""Connections open at once. A column process holds a few (its client's pool, a retry's new connection) and columns run a
few at a time; the server shares the runner's descriptors (a soft limit of 1024 by default), so 256 leaves the runner
most of them for its processes' pipes, its ledger channels and its files."""
WIRE_BOUNDS = ConnectionBounds(max_connections=MAX_CONNECTIONS)
"""The server's connection bounds: ``MAX_CONNECTIONS``, ``HEAD_TIMEOUT_S`` and ``BODY_TIMEOUT_S``."""


@dataclass
class _Run:
    """One run's recorded requests and the state of its wire faults."""

    judge: ScriptJudge
    faults: list[Fault]
    requests: list[dict[str, Any]] = field(default_factory=list)
    taken: set[int] = field(default_factory=set)  # the ``once`` faults that fired
    unreadable: list[str] = field(default_factory=list)  # requests the server answered 400 as unreadable, and why
    recorded_bytes: int = 0  # the bodies of the requests kept
    dropped: int = 0  # requests past the run's bounds: answered, not kept


class WireServer:
    """A context manager: the server runs from ``__enter__`` to ``__exit__``; ``base_url(column)`` grants a column its
    base URL and ``requests(column, run)`` reads a run's records."""

    def __init__(self, scenarios: Sequence[Scenario], model: str = "scripted-model", *, bounds: ConnectionBounds = WIRE_BOUNDS,
                 max_requests_per_run: int = MAX_REQUESTS_PER_RUN, max_recorded_bytes_per_run: int = MAX_RECORDED_BYTES_PER_RUN) -> None:  # fmt: skip
        self._scenarios = {s.id: s for s in scenarios}
        self._model = model
        self._bounds = bounds
        self._max_requests, self._max_bytes = max(1, max_requests_per_run), max(max_recorded_bytes_per_run, MAX_BODY_BYTES)  # a run's first request is always kept
        self._columns: dict[str, str] = {}  # token -> column
        self._runs: dict[tuple[str, str], _Run] = {}
        self._opened: dict[tuple[str, str], int] = {}  # (column, scenario) -> runs opened
        self._lock = threading.Lock()
        self.errors: list[str] = []
        """Exceptions the app raised (a harness bug, never a column's doing): the runner fails a run that has any."""
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self.port = 0

    def __enter__(self) -> WireServer:
        import uvicorn  # the MCP SDK brings it (the mcp extra)

        config = uvicorn.Config(self._app, host="127.0.0.1", port=0, interface="asgi3", lifespan="off", ws="none",
                                log_config=None, log_level="critical", access_log=False, **self._bounds.uvicorn_settings())  # fmt: skip
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="wire-server", daemon=True)
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("the scripted wire server did not start")
            threading.Event().wait(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(10)

    def base_url(self, column: str) -> str:
        """A new unguessable base URL for one column process (``<base>/<mode>/<key>/<step>/v1`` is a worker's)."""
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._columns[token] = column
        return f"http://127.0.0.1:{self.port}/{token}"

    def requests(self, column: str, run: str) -> list[dict[str, Any]]:
        """The requests recorded for ``run`` (``<mode>/<key>``) of ``column``, in the order they arrived; when some came
        past the run's bounds, the last one kept says how many followed it unrecorded (``dropped_after``)."""
        with self._lock:
            found = self._runs.get((column, run))
            records = [dict(r) for r in found.requests] if found else []
            if found and found.dropped:
                records[-1]["dropped_after"] = found.dropped
            return records

    # -- the ASGI app ------------------------------------------------------------------------------------------------

    async def _app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        try:
            await self._serve(scope, receive, send)
        except Exception as exc:
            with self._lock:
                self.errors.append(f"{scope.get('path')}: {type(exc).__name__}: {exc}")
            raise

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = self._route(scope)
        if found == 429:
            await _send_json(send, 429, {"error": {"message": f"more than {MAX_RUNS_PER_SCENARIO} runs of one scenario", "type": "rate_limit_error"}})
            return
        if isinstance(found, int):
            await _send_json(send, 404, {"error": {"message": "not found", "type": "not_found"}})
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away, or its body's deadline closed it: nothing to answer
                return
            body += message.get("body", b"")
            if len(body) > MAX_BODY_BYTES:  # a client is not the server's to exhaust: refused, and nothing recorded
                await _send_json(send, 413, {"error": {"message": f"a request body over {MAX_BODY_BYTES} bytes", "type": "invalid_request_error"}})
                return
            if not message.get("more_body"):
                break
        column, run, step, api = found
        try:
            request = json.loads(body)
            if not isinstance(request, dict):
                raise ValueError("not an object")
        except (ValueError, RecursionError):  # RecursionError: JSON nested deeper than the parser goes
            await _send_json(send, 400, {"error": {"message": "the body is not a JSON object", "type": "invalid_request_error"}})
            return
        try:
            await self._answer(column, run, step, api, request, len(body), _headers(scope), receive, send)
        except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError) as exc:
            # What a client sent that the normalisation could still not read: the client's doing, so a 400 for it, and
            # the run records it (a server error would stop the whole comparison as the harness's own bug).
            with self._lock:
                unreadable = self._runs[(column, run)].unreadable
                if len(unreadable) < self._max_requests:  # bounded as the records are: a column can send any number
                    unreadable.append(f"{type(exc).__name__}: {exc}"[:500])
            await _send_json(send, 400, {"error": {"message": "the scripted server could not read this request", "type": "invalid_request_error"}})

    def _route(self, scope: Scope) -> tuple[str, str, int, str] | int:
        """``(column, run, step, api)`` of a request's path; the status refusing it (404 for any other path, method, mode
        or scenario; 429 for a run past its column's ``MAX_RUNS_PER_SCENARIO``), before anything is stored."""
        parts = scope["path"].strip("/").split("/")
        if scope["method"] != "POST" or len(parts) < 6 or parts[4] != "v1":
            return 404
        token, mode, key, step, api = parts[0], parts[1], parts[2], parts[3], "/".join(parts[5:])
        with self._lock:
            column = self._columns.get(token)
        scenario_id = key.removesuffix(".again").split("@")[0]
        known = (mode in RUN_MODES and scenario_id in self._scenarios) or mode == WARMUP
        if column is None or api not in API_PATHS or not re.fullmatch(r"[0-9]{1,6}", step) or not known:
            return 404
        run = WARMUP if mode == WARMUP else f"{mode}/{key}"  # a column's warm-ups share one run, whatever their key
        with self._lock:
            if (column, run) not in self._runs and mode == WARMUP:  # a column's warm-up: a fixed answer, no faults
                self._runs[(column, run)] = _Run(ScriptJudge([{"text": "warm-up"}], user_inputs=(), system_prompt=None), [])
            elif (column, run) not in self._runs:
                if self._opened.get((column, scenario_id), 0) >= MAX_RUNS_PER_SCENARIO:
                    return 429
                self._opened[(column, scenario_id)] = self._opened.get((column, scenario_id), 0) + 1
                s = self._scenarios[scenario_id]
                judge = ScriptJudge(s.model_script, user_inputs=s.user_inputs, system_prompt=s.system_prompt)
                self._runs[(column, run)] = _Run(judge, [f for f in s.faults if f.action == "wire"])
        return column, run, int(step), API_PATHS[api]

    async def _answer(self, column: str, run_key: str, step: int, api: str, request: dict[str, Any], size: int,
                      headers: dict[str, str], receive: Receive, send: Send) -> None:  # fmt: skip
        run = self._runs[(column, run_key)]
        messages = formats.chat_messages(request) if api == "chat" else formats.responses_messages(request)
        tools = formats.chat_tools(request) if api == "chat" else formats.responses_tools(request)
        turn = run.judge.turn_of(messages)
        fault = self._fault_for(run, turn)
        point, stream = (fault.point if fault else None), request.get("stream") is True
        record: dict[str, Any] = {
            "step": step, "api": api, "stream": stream, "turn": turn, "fault": point,
            **{name: headers.get(header) for name, header in HEADERS.items()},
            "bytes": size, "messages": len(messages), "log": run.judge.entry(turn, messages), "tools": tools, "retry_after": None,
        }  # fmt: skip
        record["answer"] = {"model.http_reset": "reset", "model.bad_body": "bad_body", "model.stream_cut": "cut"}.get(point or "", 200)
        if point == "model.http_status":
            assert fault is not None and fault.status is not None
            record["answer"], record["retry_after"] = fault.status, fault.retry_after
        with self._lock:  # in the order the requests arrived (a slow answer's retry may come before it is sent)
            if run.dropped or len(run.requests) >= self._max_requests or run.recorded_bytes + size > self._max_bytes:
                run.dropped += 1  # past the run's bounds (then every later one too, so ``dropped_after`` stays true)
            else:
                run.requests.append(record)
                run.recorded_bytes += size
        if point == "model.http_slow":
            await asyncio.sleep(SLOW_DELAY_S)
            waited = not await _disconnected(receive)
            with self._lock:
                record["waited"] = waited
        reply, model = run.judge.reply(turn), str(request.get("model") or self._model)
        extra = [(b"x-scripted-turn", str(turn).encode())]
        if point == "model.http_reset":
            _abort(send)
        elif point == "model.http_status":
            assert fault is not None and fault.status is not None
            retry = [(b"retry-after", f"{fault.retry_after:g}".encode())] if fault.retry_after is not None else []
            await _send_json(send, fault.status, {"error": {"message": f"scripted status {fault.status}", "type": "scripted_fault"}}, extra + retry)
        elif point == "model.bad_body":
            await _send_raw(send, 200, b"this is not JSON", "application/json", extra)
        elif not stream:
            answer = formats.chat_completion(reply, turn, model) if api == "chat" else formats.response_object(reply, turn, model)
            await _send_raw(send, 200, canonical_json(answer).encode(), "application/json", extra, cut=point == "model.stream_cut")
        else:
            events = _chat_stream(reply, turn, model) if api == "chat" else _responses_stream(reply, turn, model)
            await _send_stream(send, events, extra, cut=point == "model.stream_cut")

    @staticmethod
    def _fault_for(run: _Run, turn: int) -> Fault | None:
        """The wire fault that takes this request of ``turn``: the first listed that applies (a ``once`` fault not fired yet)."""
        for index, fault in enumerate(run.faults):
            if fault.turn != turn or index in run.taken:
                continue
            if fault.repeat != "always":
                run.taken.add(index)
            return fault
        return None


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def _chat_stream(reply: Any, turn: int, model: str) -> Iterator[bytes]:
    for chunk in formats.chat_chunks(reply, turn, model):
        yield f"data: {canonical_json(chunk)}\n\n".encode()
    yield b"data: [DONE]\n\n"


def _responses_stream(reply: Any, turn: int, model: str) -> Iterator[bytes]:
    for event in formats.response_events(reply, turn, model):
        yield f"event: {event['type']}\ndata: {canonical_json(event)}\n\n".encode()


async def _send_json(send: Send, status: int, body: dict[str, Any], extra: Sequence[tuple[bytes, bytes]] = ()) -> None:
    await _send_raw(send, status, canonical_json(body).encode(), "application/json", list(extra))


async def _send_raw(send: Send, status: int, body: bytes, content_type: str, extra: list[tuple[bytes, bytes]], cut: bool = False) -> None:
    """A whole answer; with ``cut``, its headers promise the whole body and the connection drops after half of it."""
    headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    if cut:
        await send({"type": "http.response.body", "body": body[: len(body) // 2], "more_body": True})
        _abort(send)
        return
    await send({"type": "http.response.body", "body": body})


async def _send_stream(send: Send, events: Iterator[bytes], extra: list[tuple[bytes, bytes]], cut: bool) -> None:
    """A server-sent-event stream; with ``cut``, the connection drops after its first event."""
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"), *extra]})
    for event in events:
        await send({"type": "http.response.body", "body": event, "more_body": True})
        if cut:
            _abort(send)
            return
    await send({"type": "http.response.body", "body": b""})


def _abort(send: Send) -> None:
    """Drop the connection now (a reset, or an answer cut short): uvicorn's h11 cycle holds the transport."""
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    if transport is None:
        raise RuntimeError("the wire server cannot reach the connection's transport to drop it")
    transport.abort()


async def _disconnected(receive: Receive) -> bool:
    """Whether the client closed the connection (it gave up before the answer): a pending ``http.disconnect``."""
    try:
        message = await asyncio.wait_for(receive(), timeout=0.05)
    except TimeoutError:
        return False
    return message.get("type") == "http.disconnect"
