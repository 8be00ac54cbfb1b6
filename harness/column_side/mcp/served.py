"""The runner's MCP server of one column process's ``mcp`` mode: the project's server, out of the column's reach.

``harness.runner_side.run.servers.mcp.McpHost`` starts it as a child of the runner (the runner's user, never the column's) on a listening socket
the runner holds, so a server that died and was started again answers on the same port, and a client's new connection
waits in the socket's backlog meanwhile. It serves Streamable HTTP at ``/mcp/<scenario key>/<driver step>/mcp`` (the
run's key and step, as the wire server's paths) with the column's bearer token, every ``tools/call`` through the engine's
tool boundary (``handwritten.boundary``: schema, identity, policy, server-side approval, idempotency records) over the
fixture world of that run and step, whose effects go to the runner's ledger through a channel of its own.

Everything a run keeps is in its directory under the state directory (private to the runner; the column never sees
it): the session's records, the faults that fired, which scripted call each boundary call is (``call_map``), which
driver steps' human side was applied, and the requests the column's client sent (``requests.jsonl``, read by the
runner after the column process ends), with each stdio relay (a stdio server process of its client) that sent them.
A server that died finds it all there when it starts again.

The human's side is the scenario's, applied here, never asked of the column: before the first request of a driver
step, the decisions of every step up to it are applied to the session's records, as ``scripts/approve_mcp.py`` would
apply them (``approve``: a grant for the waiting call whose tool and arguments are the scripted call's; ``reject``: that
call declined; ``reconcile``: its uncertain record settled). A call that is not waiting gets nothing: no grant is
written ahead for a call the server never held (a framework that asks its own human first sends the call after that
answer, and the server then holds it like any other). An MCP fault of the scenario (``harness.scenarios.MCP_POINTS``) acts on the call's answer here: the
process dies (``mcp.kill_after_effect``), the answer's stream is cut (``mcp.reset_mid_call``) or the answer waits
(``mcp.slow_answer``). A kill fault in a tool ends this process too, after telling the runner which run and step it
was, and waits there: the runner kills that step's worker (the system under test) first, then this process.

A client may send a turn's calls at once (LangGraph's ``ToolNode`` gathers them): which reaches this server first is a
race, which would change from run to run the server's numbering of the calls (the ``srv:N`` its results carry) and,
where one of them kills, whether the others were received at all. One order is pinned, the model's, with a call whose
tool will kill after the others (the ``siblings_first`` of the in-process modes:
``harness.column_side.fixtures.sibling_order``): a call of a turn of several waits, before it is recorded, until the
calls before it in that order have been answered in this step, or ``SIBLINGS_WAIT_S`` has passed (a client that sends
one call after another in that order never waits; one that never sends a call, or sends them in another order one at a
time, meets the same answers that much later).
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import sqlite3
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from handwritten.boundary import ToolBoundary
from handwritten.canonical import args_hash, canonical_json
from handwritten.private_files import private_directory
from handwritten.session_records import SessionRecords
from handwritten.storage import connect
from handwritten.tools import ToolContext, ToolRegistry, ToolSpec
from harness.column_side.approver import CLOCK_START
from harness.column_side.fixtures.faults import MCP_FAULT_EXIT_CODE
from harness.column_side.fixtures.sibling_order import TOOL_KILLS
from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.mcp import KEY_META
from harness.column_side.mcp.bounded import MAX_MESSAGE_BYTES, BoundedBody
from harness.column_side.mcp.server import HTTP_BOUNDS, MAX_TRANSPORT_SESSIONS, SERVER_NAME, SERVER_VERSION, RequireBearer, answer_call, tool_listing, tool_result
from harness.fixture_tools import FIXTURE_TOOLS
from harness.ledger import LedgerClient, LedgerConnector
from harness.scenarios import MCP_SLOW_DELAY_S, Scenario, load_scenarios

MODE = "mcp"
GRANT_TTL_S = 300.0  # a grant the driver's approve writes is valid this long on the driver's clock (approve_mcp.py's default)
_KEY = re.compile(r"[a-z0-9_]{1,64}(@[A-Za-z0-9_+-]{1,64})?(\.again)?")
_STEP = re.compile(r"[0-9]{1,4}")
SIBLINGS_WAIT_S = 2.0
"""How long a call waits for the calls before it in its turn's order (see the module docstring)."""
RUN_SCOPE = "agent_bench.run"  # in an HTTP request's scope: (run key, driver step)
CUT_SCOPE = "agent_bench.cut"  # set by a call whose answer ``mcp.reset_mid_call`` cuts
RELAY_HEADER = b"x-agent-bench-relay"  # the stdio relay's own id on its requests (``scripts/mcp_stdio_relay.py``)
_RELAY_ID = re.compile(rb"[0-9]{1,10}")  # a process id: any other value is no relay's (the client's own header: ignored)


@dataclass
class Run:
    """One run's server side: its scenario, its directory, and the boundary of its current driver step."""

    key: str  # ``mcp/<scenario key>``
    scenario: Scenario
    directory: Path
    log: Any  # requests.jsonl, line-buffered
    state: sqlite3.Connection  # call_map and applied steps
    step: int = -1
    boundary: ToolBoundary | None = None
    world: FixtureWorld | None = None
    fired: list[str] = field(default_factory=list)
    calls: int = 0  # tools/call requests received so far (by every server of the run): each one's number
    answered: set[str] = field(default_factory=set)  # the scripted calls answered in the current step
    relays: set[str] = field(default_factory=set)  # the stdio relays this server process has recorded

    def record(self, entry: dict[str, Any]) -> None:
        self.log.write(canonical_json(entry) + "\n")

    async def in_turn_order(self, scripted: str) -> None:
        """Before the call ``scripted`` is recorded: wait until the calls before it in its scripted turn's order (the
        model's, a call whose tool will kill after the others) have been answered in this step, at most
        ``SIBLINGS_WAIT_S``."""
        assert self.world is not None
        faults = self.world.faults
        ids = next((ids for t in self.scenario.model_script if scripted in (ids := [c["id"] for c in t.get("tool_calls", ())])), [])
        if len(ids) < 2:
            return
        killing = {c for c in ids if faults.armed(c) and any(f.point in TOOL_KILLS and f.call_id == c for f in self.scenario.faults)}
        order = [c for c in ids if c not in killing] + [c for c in ids if c in killing]
        before = set(order[: order.index(scripted)])
        deadline = anyio.current_time() + SIBLINGS_WAIT_S
        while not before <= self.answered and anyio.current_time() < deadline:
            await anyio.sleep(0.005)


class Served:
    """The runs of one column process, each opened at its first request (paths the scenarios do not name are 404)."""

    def __init__(self, scenarios: list[Scenario], state_dir: Path, connector: LedgerConnector, events: int) -> None:
        self._scenarios = {s.id: s for s in scenarios}
        self._state_dir = state_dir
        self._connector = connector
        self._events = events
        self._runs: dict[str, Run] = {}

    def route(self, path: str) -> tuple[str, int] | None:
        """``(run key, step)`` of ``/mcp/<scenario key>/<step>/mcp``, or None for any other path."""
        parts = path.strip("/").split("/")
        if len(parts) != 4 or parts[0] != MODE or parts[3] != "mcp" or not _KEY.fullmatch(parts[1]) or not _STEP.fullmatch(parts[2]):
            return None
        scenario = self._scenarios.get(re.split(r"[@.]", parts[1])[0])
        if scenario is None or int(parts[2]) >= len(scenario.driver):
            return None
        return f"{MODE}/{parts[1]}", int(parts[2])

    def at(self, run_key: str, step: int) -> Run:
        """The run, its boundary that of ``step`` (a new fixture world on a ledger channel of that step), with the human's
        side of every step up to ``step`` applied."""
        run = self._runs.get(run_key) or self._open(run_key)
        if step > run.step:  # steps only move forward: a request of an earlier step is served by the current one
            if run.world is not None and run.boundary is not None:
                run.boundary.records.close()
                run.world.close()
            run.step = step
            run.answered = set()
            run.world = self._world(run, step)
            records = SessionRecords(run.directory / "session")
            run.boundary = ToolBoundary(ToolRegistry(self._tools(run)), records, run.scenario.session_id, run.scenario.user, clock=lambda: _clock(run.scenario, step))
            self._apply_decisions(run, step, records)
        return run

    def relayed(self, run_key: str, step: int, relay: str) -> None:
        """Record, once per server process, each stdio relay that sends a run's requests (a relay is a stdio server
        process its client started: the relay's own id is kept in the state directory only, never in the evidence). The
        relay runs inside the column's reach, so the count is what the relays said: a client that forged the header
        would change this count, and nothing else.
        Only recorded: the run's step is not entered here (``at``), so a relay's first request changes nothing a request
        over HTTP would not."""
        run = self._runs.get(run_key) or self._open(run_key)
        if relay not in run.relays:
            run.relays.add(relay)
            run.record({"step": step, "method": "relay", "relay": relay})

    def _open(self, run_key: str) -> Run:
        scenario = self._scenarios[re.split(r"[@.]", run_key.split("/", 1)[1])[0]]
        directory = self._state_dir / run_key.replace("/", "__")
        private_directory(directory)
        state = connect(str(directory / "served.sqlite"))
        state.execute("CREATE TABLE IF NOT EXISTS call_map (call_id TEXT PRIMARY KEY, scripted TEXT NOT NULL, seq INTEGER NOT NULL)")
        state.execute("CREATE TABLE IF NOT EXISTS applied (step INTEGER PRIMARY KEY)")
        path = directory / "requests.jsonl"
        received = sum('"phase":"received"' in line for line in path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0
        log = open(path, "a", encoding="utf-8", buffering=1)
        run = self._runs[run_key] = Run(run_key, scenario, directory, log, state, calls=received)
        return run

    def _world(self, run: Run, step: int) -> FixtureWorld:
        ledger = LedgerClient(self._connector.open(run.key, step))
        world = FixtureWorld(run.directory, list(run.scenario.faults), may_kill=True, ledger=ledger)
        world.faults.mcp_answer = run.fired.append
        world.faults.on_kill(lambda call_id: self._killed_in_tool(run))
        return world

    def _killed_in_tool(self, run: Run) -> NoReturn:
        """A kill fault fired in a tool: the runner kills the step's worker, then this process. Until then it stops here,
        holding the call's connection open, so that no client sees the server go before its own process dies."""
        self.tell(run, "tool_kill")
        while True:
            time.sleep(60)

    def tell(self, run: Run, what: str) -> None:
        """An event for the runner (``McpHost``): this process is about to die at ``run``'s current step."""
        os.write(self._events, (canonical_json({"event": what, "run": run.key, "step": run.step}) + "\n").encode())

    def _tools(self, run: Run) -> list[ToolSpec]:
        """The scenario's tools over the run's world, each effect counted under the scripted call it is
        (``scripted_call``): the ledger's call ids are the model's, as every column's."""
        world = run.world
        assert world is not None

        def executor(name: str) -> Callable[[Any, ToolContext], Any]:
            return lambda args, ctx: world.call(name, self.scripted_call(run, name, args, ctx.call_id), args)

        return [ToolSpec(t.name, t.description, t.schema, t.risk, executor(t.name), t.acts_for) for t in (FIXTURE_TOOLS[n] for n in run.scenario.tools)]

    def scripted_call(self, run: Run, tool: str, args: Any, call_id: str, peek: bool = False) -> str:
        """The scripted call a boundary call (its key, or the server's ``srv:N``) is: the one it was mapped to, else the
        first scripted call of this tool with these arguments not mapped yet, else the last such call (a call sent again
        without its key is the same call again); a call the script does not hold keeps its boundary id."""
        found = run.state.execute("SELECT scripted FROM call_map WHERE call_id = ?", (call_id,)).fetchone()
        if found:
            return str(found[0])
        same = [c["id"] for turn in run.scenario.model_script for c in turn.get("tool_calls", ())
                if c["name"] == tool and not isinstance(c["arguments"], str) and canonical_json(c["arguments"]) == canonical_json(args)]
        mapped = {r[0] for r in run.state.execute("SELECT scripted FROM call_map")}
        scripted = next((c for c in same if c not in mapped), same[-1] if same else call_id)
        if not peek:  # peek: which scripted call a request will be, before the boundary gives it an id
            run.state.execute("INSERT INTO call_map (call_id, scripted, seq) VALUES (?, ?, (SELECT COUNT(*) FROM call_map))", (call_id, scripted))
        return scripted

    def _apply_decisions(self, run: Run, step: int, records: SessionRecords) -> None:
        """The human's side of each driver step up to ``step`` not applied yet, once each (a server started again skips
        what an earlier one applied)."""
        applied = {r[0] for r in run.state.execute("SELECT step FROM applied")}
        for index in range(step + 1):
            if index in applied:
                continue
            driver = run.scenario.driver[index]
            outcome = self._decide(run, driver, records, _clock(run.scenario, index))
            if outcome is not None:
                run.record({"step": index, "human": driver["action"], "call_id": driver.get("call_id"), "outcome": outcome})
            run.state.execute("INSERT INTO applied (step) VALUES (?)", (index,))

    def _decide(self, run: Run, driver: dict[str, Any], records: SessionRecords, now: float) -> str | None:
        action, call_id = driver["action"], driver.get("call_id")
        if action in ("approve", "reject") and call_id is not None:
            call = run.scenario.scripted_call(call_id)
            digest = args_hash(call["arguments"]) if not isinstance(call["arguments"], str) else None
            waiting = [p for p in records.pending() if p["tool"] == call["name"] and p["args_hash"] == digest]
            if not waiting:  # the client never sent the call (or held it for its own human first), or sent other arguments
                return "nothing_waiting"
            if action == "approve":
                records.grant_pending(waiting[0]["pending_id"], now + GRANT_TTL_S)
                return "granted"
            records.dismiss(waiting[0]["pending_id"])
            return "declined"
        if action == "reconcile" and call_id is not None:
            sent = [r[0] for r in run.state.execute("SELECT call_id FROM call_map WHERE scripted = ? ORDER BY seq", (call_id,))]
            settled = [records.reconcile(c, driver.get("outcome", "confirmed")) for c in sent]
            return "reconciled" if "reconciled" in settled else "nothing_uncertain"
        return None


def _clock(scenario: Scenario, step: int) -> float:
    """The driver's clock at ``step`` (``harness.column_side.driver``: it starts at ``CLOCK_START`` and each step advances it)."""
    return CLOCK_START + float(sum(s.get("advance_clock_s", 0) for s in scenario.driver[: step + 1]))


def mcp_server(served: Served) -> Server[Any]:
    """One low-level server for every run: each request's run and step come from its path (``RUN_SCOPE``)."""

    def run_of(ctx: ServerRequestContext[Any]) -> Run:
        assert ctx.request is not None, "served over HTTP: every request has one"
        run_key, step = ctx.request.scope[RUN_SCOPE]
        return served.at(run_key, step)

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        run = run_of(ctx)
        run.record({"step": run.step, "method": "tools/list"})
        assert run.boundary is not None
        return types.ListToolsResult(tools=tool_listing(run.boundary))

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        run = run_of(ctx)
        assert run.boundary is not None
        meta = dict(params.meta or {})  # recorded without the key, which is recorded apart
        key = meta.get(KEY_META)
        await run.in_turn_order(served.scripted_call(run, params.name, params.arguments, key if isinstance(key, str) else "", peek=True))
        run.calls += 1
        number = run.calls
        key = meta.pop(KEY_META, None)
        sent = {"step": run.step, "method": "tools/call", "n": number, "name": params.name, "arguments": params.arguments, "meta": meta, "key": key}
        run.record(sent | {"phase": "received"})  # before the tool: a server that dies in it has recorded the request
        result = answer_call(run.boundary, params)
        faults, run.fired[:] = list(run.fired), []
        mapped = run.state.execute("SELECT scripted FROM call_map WHERE call_id = ?", (result.call_id,)).fetchone()
        run.answered.update([mapped[0]] if mapped else [])
        run.record({"step": run.step, "method": "tools/call", "n": number, "phase": "answered", "call_id": result.call_id, "status": result.status,
                    "reason": result.reason, "faults": faults})  # fmt: skip
        for point in faults:
            if point == "mcp.slow_answer":
                await _slow(run, number)
            elif point == "mcp.reset_mid_call" and ctx.request is not None:
                ctx.request.scope[CUT_SCOPE] = True  # the answer's stream is cut as it is sent (``Routed``)
            else:  # mcp.kill_after_effect: the server dies before its answer
                served.tell(run, "server_kill")
                os._exit(MCP_FAULT_EXIT_CODE)
        return tool_result(result)

    return Server(SERVER_NAME, version=SERVER_VERSION, on_list_tools=list_tools, on_call_tool=call_tool)


async def _slow(run: Run, number: int) -> None:
    """Wait ``MCP_SLOW_DELAY_S`` before the call's answer; a client that stops waiting meanwhile (the SDK's server
    cancels the call's handler: a ``notifications/cancelled``, or the session ended) has withdrawn it, and is recorded so."""
    try:
        await anyio.sleep(MCP_SLOW_DELAY_S)
    except anyio.get_cancelled_exc_class():
        run.record({"step": run.step, "method": "tools/call", "n": number, "phase": "withdrawn"})
        raise


class Routed:
    """The path's run and step into the scope (the SDK's app serves ``/mcp``), 404 for any other path; and a call's
    answer cut where ``mcp.reset_mid_call`` asks: the stream that carries it ends without it, the connection dropped."""

    def __init__(self, app: ASGIApp, served: Served) -> None:
        self.app = app
        self.served = served

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        found = self.served.route(scope["path"])
        if found is None:
            await send({"type": "http.response.start", "status": 404, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"not found"})
            return
        inner = {**scope, "path": "/mcp", "raw_path": b"/mcp", RUN_SCOPE: found}
        relay = dict(scope["headers"]).get(RELAY_HEADER, b"")
        if _RELAY_ID.fullmatch(relay):  # a request the harness's stdio relay sent: which relay process (the client's stdio server) it was
            self.served.relayed(*found, relay.decode("ascii"))

        async def cutting(message: Message) -> None:
            if inner.get(CUT_SCOPE) and message["type"] == "http.response.body" and message.get("body"):
                raise ConnectionAbortedError("mcp.reset_mid_call: the answer's stream is cut")
            await send(message)

        await self.app(inner, receive, cutting)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The runner's MCP server of one column process (started by harness.runner_side.run.servers.mcp).")
    parser.add_argument("--socket-fd", type=int, required=True)
    parser.add_argument("--ledger-fd", type=int, required=True)
    parser.add_argument("--events-fd", type=int, required=True)
    parser.add_argument("--scenarios", type=Path, required=True)
    parser.add_argument("--state-dir", type=Path, required=True)
    args = parser.parse_args(argv)
    os.umask(0o077)
    token = sys.stdin.readline().strip()  # never on a command line
    import uvicorn

    served = Served(load_scenarios(args.scenarios), args.state_dir, LedgerConnector.from_fd(args.ledger_fd), args.events_fd)
    sdk_app = mcp_server(served).streamable_http_app(host="127.0.0.1", max_request_body_size=MAX_MESSAGE_BYTES, max_sessions=MAX_TRANSPORT_SESSIONS)
    app = RequireBearer(Routed(BoundedBody(sdk_app), served), token)
    sock = socket.socket(fileno=args.socket_fd)
    config = uvicorn.Config(app, log_level="critical", access_log=False, lifespan="on", **HTTP_BOUNDS.uvicorn_settings())
    uvicorn.Server(config).run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())
