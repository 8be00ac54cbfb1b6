"""The MCP server against a hostile local client: nobody takes another's approval, no planted file approves anything,
concurrent deliveries tell the truth, and no input takes the server down or gets an answer it should not.

Each test is an attack that worked once (issue 18); they drive the server as programs (``scripts/serve_mcp.py``,
``scripts/approve_mcp.py``) with raw requests and the official SDK's client, and read the session's own ledger.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AsyncExitStack, nullcontext
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from handwritten.boundary import ToolBoundary
from handwritten.canonical import args_hash
from handwritten.session_records import SessionRecords
from handwritten.tools import RiskClass, ToolContext, ToolRegistry, ToolSpec
from harness.column_side.mcp.server import HEAD_TIMEOUT_S, MAX_TRANSPORT_SESSIONS
from tests.harness.column_side.mcp.attack_kit import (
    APPROVE,
    KEY_META,
    TRANSFER,
    HttpServer,
    RawStdio,
    approve,
    effects,
    http_server,
    one_line_error,
    pending_ids,
    run_script,
    serve_command,
    structured,
)

pytestmark = pytest.mark.slow
RACE_TRIALS = int(os.environ.get("AGENT_BENCH_MCP_RACE_TRIALS", "5"))  # 30 outside CI: see docs/mcp.md
RACE_SERVERS = 8


@pytest.fixture(scope="module")
def raw_stdio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RawStdio, Path]]:
    """One stdio server the malformed-input tests share (each refusal leaves it serving: that is part of what they check)."""
    state = tmp_path_factory.mktemp("raw-stdio")
    server = RawStdio(state)
    try:
        yield server, state
    finally:
        server.close()


@pytest.fixture(scope="module")
def shared_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    """One HTTP server the malformed-request tests share."""
    with http_server(tmp_path_factory.mktemp("shared-http")) as server:
        yield server


def stdio_params(state: Path, session: str = "s1") -> StdioServerParameters:
    command, *args = serve_command(state, session=session)
    return StdioServerParameters(command=command, args=args)


async def call(client: Client, tool: str, arguments: Any, key: str | None = None) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments, meta={KEY_META: key} if key else None)  # type: ignore[arg-type]
    return dict(result.structured_content or {})


# -- identity over HTTP: the token, never a header a client picks ----------------------------------------------


def test_an_http_client_without_the_token_gets_nothing(tmp_path: Path) -> None:
    with http_server(tmp_path) as server:
        for authorization in [None, "Bearer made-up-token", f"Bearer {server.token}x", f"Basic {server.token}", "bearer", f"Bearer  {server.token[:-1]}"]:
            headers = {"Authorization": authorization} if authorization else {}
            status, body, message = server.call("transfer_funds", TRANSFER, token=None, headers=headers, meta={KEY_META: "k1"})
            assert status == 401 and (message is None or "result" not in message), (authorization, status, body)
        assert pending_ids(tmp_path) == []  # touched nothing: not even a pending call
        status, _, message = server.call("transfer_funds", TRANSFER, token=server.token, meta={KEY_META: "k1"})
        assert status == 200 and structured(message)["status"] == "approval_required"
    assert effects(tmp_path, "transfer_funds") == {}


def test_a_grant_for_one_clients_call_never_runs_another_clients_call(tmp_path: Path) -> None:
    """Two HTTP clients with the token (the same session, whatever ``Mcp-Session-Id`` each names) send the same transfer
    under their own keys; the human grants the first one's: the second one's still waits."""
    with http_server(tmp_path) as server:
        first = structured(server.call("transfer_funds", TRANSFER, token=server.token, meta={KEY_META: "a-1"}, headers={"Mcp-Session-Id": "client-a"})[2])
        second = structured(server.call("transfer_funds", TRANSFER, token=server.token, meta={KEY_META: "b-1"}, headers={"Mcp-Session-Id": "client-a"})[2])
        assert first["status"] == second["status"] == "approval_required"
        assert first["result"]["pending_id"] != second["result"]["pending_id"]  # two calls wait, each its own
        assert approve(tmp_path, "--grant", first["result"]["pending_id"]).returncode == 0
        again = structured(server.call("transfer_funds", TRANSFER, token=server.token, meta={KEY_META: "b-1"}, headers={"Mcp-Session-Id": "client-a"})[2])
        assert again["status"] == "approval_required"
        ran = structured(server.call("transfer_funds", TRANSFER, token=server.token, meta={KEY_META: "a-1"})[2])
        assert ran["status"] == "ok"
    assert effects(tmp_path, "transfer_funds") == {"a-1": 1}
    assert pending_ids(tmp_path) == [second["result"]["pending_id"]]


def test_open_descriptors_stay_flat_over_300_http_sessions(tmp_path: Path) -> None:
    """300 clients each open a transport session (the SDK gives each an ``Mcp-Session-Id``), call a tool in it and never
    close it, on a server started without ``--session``: the server keeps at most its cap of them (then answers 503
    until one idles out), and neither descriptors nor directories grow."""
    with http_server(tmp_path, session=None) as server:
        for _ in range(10):  # warm: whatever the server opens once
            server.legacy_session_call("get_weather", {"city": "Paris"})
        before = server.open_descriptors()
        outcomes = [server.legacy_session_call("get_weather", {"city": "Paris"}) for _ in range(300)]
        after = server.open_descriptors()
        sessions = sorted(p.name for p in tmp_path.iterdir() if p.is_dir())
        assert sessions == [server.session], sessions[:5]  # no directory per transport session
        status, _, message = server.call("get_weather", {"city": "Paris"}, token=server.token)  # a client with no transport session still gets in
        assert status == 200 and structured(message)["status"] == "ok"
    served = [structured(reply)["status"] for status, reply in outcomes if status == 200]
    assert served == ["ok"] * (MAX_TRANSPORT_SESSIONS - 10), len(served)
    assert {status for status, _ in outcomes[len(served) :]} == {503}
    assert after - before <= 5, (before, after)


def test_connections_that_never_finish_a_request_head_are_closed(shared_http: HttpServer) -> None:
    """A client without the token holds connections open by sending half a request head, over and over."""
    with nullcontext(shared_http) as server:
        server.call("get_weather", {"city": "Paris"}, token=server.token)  # warm: whatever the server opens once
        before = server.open_descriptors()
        held = []
        whole = b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"  # answered 401: then half a second head on the same connection
        for i in range(50):
            sock = socket.create_connection(("127.0.0.1", server.port))
            if i % 2:
                sock.sendall(whole)
                sock.settimeout(10)
                answer = b""
                while not answer.endswith(b"}"):  # the whole 401, its JSON body last
                    answer += sock.recv(4096)
                assert answer.startswith(b"HTTP/1.1 401"), i
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            held.append(sock)
        started, deadline = time.monotonic(), time.monotonic() + 15
        for sock in held:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            assert sock.recv(1) == b"", "the server kept a connection whose request head never ended"  # closed, no answer
            sock.close()
        assert time.monotonic() - started >= HEAD_TIMEOUT_S - 1  # by the deadline, not at once for some other reason
        assert server.open_descriptors() <= before + 2
        status, _, message = server.call("get_weather", {"city": "Paris"}, token=server.token)
        assert status == 200 and structured(message)["status"] == "ok"


def test_a_bad_session_header_is_answered_without_an_internal_error(shared_http: HttpServer) -> None:
    server = shared_http
    for header in ["../../etc", "x" * 300, "a b", "s1", ""]:
        status, body, message = server.call("get_weather", {"city": "Paris"}, token=server.token, headers={"Mcp-Session-Id": header})
        assert status < 500 and message is not None and "Traceback" not in body, (header, status, body[:500])
        assert structured(message)["status"] == "ok", (header, body[:500])  # the header is never identity: it changes nothing


# -- the state directory: only the server user's, private, and grants signed ------------------------------------


def test_a_planted_grant_row_approves_nothing(tmp_path: Path) -> None:
    async def main() -> list[str]:
        async with Client(stdio_params(tmp_path)) as client:
            held = await call(client, "transfer_funds", TRANSFER, "k1")
            _plant_grants(tmp_path / "s1" / "boundary.sqlite", "transfer_funds", args_hash(TRANSFER), "k1")
            again = await call(client, "transfer_funds", TRANSFER, "k1")
            keyless = await call(client, "transfer_funds", TRANSFER)
            return [held["status"], again["status"], keyless["status"]]

    assert anyio.run(main) == ["approval_required"] * 3
    assert effects(tmp_path, "transfer_funds") == {}


def _plant_grants(db: Path, tool: str, digest: str, key: str) -> None:
    """What someone without the secret can write: a row in every table that looks like grants, every column filled in
    as a valid grant of this call would have it, for its key and for no key."""
    with sqlite3.connect(db) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'") if "grant" in r[0] or "approv" in r[0]]
        assert tables, "no grants table to plant in"
        for table in tables:
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})") if not r[5]]  # not the primary key
            for planted_key in (key, None):
                guess = {"tool": tool, "args_hash": digest, "expires_at": 4e9, "used": 0, "call_id": planted_key, "call_key": planted_key, "mac": "0" * 64, "grant_id": 1}
                values = [guess.get(c, planted_key if "key" in c or "call" in c else 0) for c in columns]
                conn.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", values)


def _foreign_owned(path: Path) -> None:
    path.mkdir(mode=0o755)
    if os.geteuid() != 0:
        pytest.skip("needs root to make a directory another user owns (CI runs as root)")
    os.chown(path, 65534, 65534)


@pytest.mark.parametrize("case", ["state dir writable by all", "state dir of another user", "session dir writable by all", "session dir a symlink"])
def test_a_state_directory_others_could_write_is_refused_at_start(tmp_path: Path, case: str) -> None:
    state = tmp_path / "state"
    match case:
        case "state dir writable by all":
            state.mkdir()
            os.chmod(state, 0o777)
            named = state
        case "state dir of another user":
            _foreign_owned(state)
            named = state
        case "session dir writable by all":
            state.mkdir(mode=0o700)
            (state / "s1").mkdir()
            os.chmod(state / "s1", 0o777)
            named = state / "s1"
        case "session dir a symlink":
            state.mkdir(mode=0o700)
            (tmp_path / "elsewhere").mkdir(mode=0o700)
            (state / "s1").symlink_to(tmp_path / "elsewhere")
            named = state / "s1"
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    line = one_line_error(run_script(serve_command(state)))
    assert str(named) in line, line
    line = one_line_error(approve(state))
    assert str(named) in line, line
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before  # nothing written into it


def test_state_files_are_private(tmp_path: Path) -> None:
    async def main() -> None:
        async with Client(stdio_params(tmp_path / "state")) as client:
            await call(client, "put_note", {"key": "n", "text": "t"}, "k1")
            await call(client, "transfer_funds", TRANSFER, "k2")

    anyio.run(main)
    found = {p: p.stat().st_mode & 0o777 for p in (tmp_path / "state").rglob("*")}
    assert found and all(mode == (0o700 if p.is_dir() else 0o600) for p, mode in found.items()), {str(p): oct(m) for p, m in found.items()}
    assert (tmp_path / "state").stat().st_mode & 0o777 == 0o700


# -- concurrent deliveries of one granted call -------------------------------------------------------------------


def test_concurrent_identical_calls_give_one_effect_and_truthful_statuses(tmp_path: Path) -> None:
    """8 servers of one session each receive the same granted call with the same key at the same moment."""

    async def deliver(client: Client, go: anyio.Event, args: dict[str, Any], key: str, statuses: list[str]) -> None:
        await go.wait()
        statuses.append((await call(client, "transfer_funds", args, key))["status"])

    async def race(clients: list[Client]) -> list[list[str]]:
        seen = []
        for trial in range(RACE_TRIALS):
            key = f"race-{trial}"
            args = {**TRANSFER, "amount_cents": 100 + trial}
            held = await call(clients[0], "transfer_funds", args, key)
            assert held["status"] == "approval_required", held
            granted = await anyio.to_thread.run_sync(approve, tmp_path, "--grant", held["result"]["pending_id"])
            assert granted.returncode == 0, granted.stderr
            go, statuses = anyio.Event(), []
            async with anyio.create_task_group() as tasks:
                for client in clients:
                    tasks.start_soon(deliver, client, go, args, key, statuses)
                await anyio.sleep(0.2)
                go.set()
            statuses.append((await call(clients[-1], "transfer_funds", args, key))["status"])  # afterwards: its result
            seen.append(statuses)
        return seen

    async def main() -> list[list[str]]:
        clients: list[Client] = []
        all_up, done = anyio.Event(), anyio.Event()

        async def connected(params: StdioServerParameters) -> None:  # the servers start side by side
            async with Client(params) as client:
                clients.append(client)
                if len(clients) == RACE_SERVERS:
                    all_up.set()
                await done.wait()

        async with anyio.create_task_group() as tasks:
            for _ in range(RACE_SERVERS):
                tasks.start_soon(connected, stdio_params(tmp_path))
            await all_up.wait()
            try:
                return await race(clients)
            finally:
                done.set()

    seen = anyio.run(main)
    for trial, statuses in enumerate(seen):
        assert set(statuses[:-1]) <= {"ok", "in_progress", "replayed"} and statuses.count("ok") == 1, (trial, statuses)
        assert statuses[-1] == "replayed", (trial, statuses)
    assert effects(tmp_path, "transfer_funds") == {f"race-{t}": 1 for t in range(RACE_TRIALS)}
    assert pending_ids(tmp_path) == []  # an executed call is never listed as waiting


# -- grants: one tool, one set of arguments, one key ---------------------------------------------------------------


def test_a_grant_for_one_tool_never_runs_another(tmp_path: Path) -> None:
    """Two high-risk tools of someone's own that take the same arguments: the grant of one, taken, never runs the other
    under the same key, even after the first one's attempt failed before any effect."""
    entered: list[str] = []

    def executor(name: str) -> Any:
        def run(args: Any, ctx: ToolContext) -> Any:
            entered.append(f"{name}#{ctx.attempt}")
            if name == "wire_a" and ctx.attempt == 1:
                raise RuntimeError("the bank's API was down (before any effect)")
            return {"wired": name}

        return run

    schema = {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"], "additionalProperties": False}
    registry = ToolRegistry([ToolSpec(name, name, schema, RiskClass.HIGH_RISK, executor(name)) for name in ("wire_a", "wire_b")])
    records = SessionRecords(tmp_path / "state" / "s1")
    boundary = ToolBoundary(registry, records, "s1", "alice", clock=lambda: 1000.0)
    records.grant("wire_a", args_hash({"to": "bob"}), 2000.0, "k1")
    outcomes = [boundary.call(tool, {"to": "bob"}, key="k1").status for tool in ("wire_b", "wire_a", "wire_b", "wire_a", "wire_b")]
    assert entered == ["wire_a#1", "wire_a#2"], entered
    assert outcomes == ["approval_required", "error", "refused", "ok", "refused"], outcomes  # wire_b: no grant of its own, then key_conflict
    records.close()


def test_a_client_key_in_the_servers_namespace_is_refused(tmp_path: Path) -> None:
    async def main() -> list[tuple[str, str | None]]:
        async with Client(stdio_params(tmp_path)) as client:
            out = []
            for key in ("srv:1", "srv:2"):
                body = await call(client, "put_note", {"key": "n", "text": "t"}, key)
                out.append((body["status"], body["reason"]))
            held = await call(client, "transfer_funds", TRANSFER)  # no key: the server names the call
            assert held["status"] == "approval_required"
            await anyio.to_thread.run_sync(lambda: approve(tmp_path, "--grant", held["result"]["pending_id"]))
            ran = await call(client, "transfer_funds", TRANSFER)
            out.append((ran["status"], ran["call_id"]))
            return out

    refused_1, refused_2, (ran, ran_as) = anyio.run(main)
    assert refused_1 == refused_2 == ("refused", "reserved_key")
    assert ran == "ok" and ran_as.startswith("srv:")
    assert effects(tmp_path, "put_note") == {}


def test_the_human_approves_what_they_were_shown(tmp_path: Path) -> None:
    """A key with control characters would redraw the human's terminal over the arguments the human approves, and a long
    argument would push another one off the human's line."""
    evil = {"from_account": "ACC-1", "to_account": "ACC-666", "amount_cents": 99999999}
    spoof = "order-17\r\x1b[29Ctransfer_funds  " + json.dumps(TRANSFER) + "  key order-17\x1b[K"
    padded = {**TRANSFER, "to_account": "ACC-777", "memo": " " * 100_000}
    server = RawStdio(tmp_path)
    try:
        answers = [structured(server.call(i, "transfer_funds", evil, key)) for i, key in enumerate([spoof, "a\nb", "\u202eevil", "k" * 257])]
        server.send({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "transfer_funds", "arguments": evil, "_meta": {KEY_META: 17}}})
        answers.append(structured(server.reply()))
        waiting = [structured(server.call(10, "transfer_funds", evil, "order-17")), structured(server.call(11, "transfer_funds", padded, "k2"))]
    finally:
        server.close()
    assert [(a["status"], a["reason"]) for a in answers] == [("refused", "invalid_key")] * 5, answers
    assert [w["status"] for w in waiting] == ["approval_required"] * 2
    lines = approve(tmp_path).stdout.splitlines()
    assert len(lines) == 2 and all(line.isprintable() and len(line) < 400 for line in lines), lines
    assert '"to_account": "ACC-666"' in lines[0] and 'key "order-17"' in lines[0], lines[0]  # what waits is what is shown, the key quoted
    assert '"to_account": "ACC-777"' in lines[1] and "--show" in lines[1], lines[1]  # every argument shown, the long one cut
    shown = approve(tmp_path, "--show", waiting[1]["result"]["pending_id"])
    assert shown.returncode == 0 and json.loads(shown.stdout)["args"] == padded  # the whole of it


def test_a_grant_written_while_a_delivery_waits_never_leaves_a_run_call_listed(tmp_path: Path) -> None:
    """The human grants at the very moment a delivery finds no grant: either the delivery takes it, or it waits and the
    grant removes it from the list; afterwards the call runs once and nothing of it waits."""

    async def main() -> None:
        async with AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(Client(stdio_params(tmp_path))) for _ in range(2)]
            for trial in range(3):
                key, args = f"g-{trial}", {**TRANSFER, "amount_cents": 10 + trial}
                pending = (await call(clients[0], "transfer_funds", args, key))["result"]["pending_id"]
                granted = anyio.Event()

                async def hammer(client: Client, key: str = key, args: dict[str, Any] = args, granted: anyio.Event = granted) -> None:
                    while not granted.is_set():  # a delivery after another, all through the moment of the grant
                        await call(client, "transfer_funds", args, key)

                async with anyio.create_task_group() as tasks:
                    for client in clients:
                        tasks.start_soon(hammer, client)
                    await anyio.to_thread.run_sync(approve, tmp_path, "--grant", pending)
                    granted.set()
                assert (await call(clients[0], "transfer_funds", args, key))["status"] in ("ok", "replayed")
                assert (await call(clients[1], "transfer_funds", args, key))["status"] == "replayed"

    anyio.run(main)
    assert pending_ids(tmp_path) == []
    assert effects(tmp_path, "transfer_funds") == {f"g-{t}": 1 for t in range(3)}


# -- bounded input, and bad values on the command line -------------------------------------------------------------


def test_a_message_over_the_limit_is_refused_over_stdio_and_nothing_is_stored(raw_stdio: tuple[RawStdio, Path]) -> None:
    server, tmp_path = raw_stdio
    params = {"name": "put_note", "arguments": {"key": "n", "text": "x" * (3 << 20)}, "_meta": {KEY_META: "big"}}
    for request_id, message in [
        (5, {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params}),  # the id first, as the Python SDK writes
        ("six", {"jsonrpc": "2.0", "method": "tools/call", "params": params, "id": "six"}),  # last, as the TypeScript SDK does
        (None, {"jsonrpc": "2.0", "method": "tools/call", "params": {**params, "id": 7}}),  # none of its own
    ]:
        server.send(message)
        reply = server.reply()
        assert reply["id"] == request_id and "1048576" in reply["error"]["message"], str(reply)[:500]
    assert server.call(8, "get_weather", {"city": "Paris"})["id"] == 8  # the server goes on
    assert effects(tmp_path, "put_note") == {}
    with sqlite3.connect(tmp_path / "s1" / "idempotency.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM idempotency").fetchone() == (0,)


def test_a_message_over_the_limit_is_refused_over_http(shared_http: HttpServer) -> None:
    server = shared_http
    status, body, message = server.call("put_note", {"key": "n", "text": "x" * (2 << 20)}, token=server.token, meta={KEY_META: "big"})
    assert status == 413 and message is not None and "1048576" in message["error"]["message"], (status, body[:300])
    assert effects(server.state, "put_note") == {}


def test_deep_nesting_is_answered_over_stdio(raw_stdio: tuple[RawStdio, Path]) -> None:
    server, _ = raw_stdio
    for request_id, depth in enumerate([100, 900, 5000]):
        nested = '{"a":' * depth + "1" + "}" * depth
        server.send(raw=(f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{{"name":"put_note","arguments":' + nested + "}}").encode())
        reply = server.reply()
        assert reply["id"] == request_id and "nested deeper than 64" in json.dumps(reply), (depth, str(reply)[:500])
    assert server.call(10, "get_weather", {"city": "Paris"})["id"] == 10


def test_every_malformed_line_over_stdio_is_answered(raw_stdio: tuple[RawStdio, Path]) -> None:
    server, _ = raw_stdio
    answers = {}
    for label, raw in [
        ("id true", b'{"jsonrpc":"2.0","id":true,"method":"ping"}'),
        ("id 1.5", b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}'),
        ("id null", b'{"jsonrpc":"2.0","id":null,"method":"ping"}'),
        ("id object", b'{"jsonrpc":"2.0","id":{},"method":"ping"}'),
        ("a batch", b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]'),
        ("not an object", b'"ping"'),
        ("not JSON", b'{"jsonrpc":'),
        ("not UTF-8", b'{"jsonrpc":"2.0","id":2,"method":"\xff"}'),
        ("no method", b'{"jsonrpc":"2.0","id":4}'),
        ("id list", b'{"jsonrpc":"2.0","id":[1],"method":"ping"}'),
        ("lone surrogate id", b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}'),
        ("lone surrogate key", b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"put_note","arguments":{},"_meta":{"k":"\\udc00"}}}'),
        ("lone surrogate tool", b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"\\ud800x","arguments":{}}}'),
    ]:
        server.send(raw=raw)
        answers[label] = server.reply()
    assert all("error" in a for a in answers.values()), answers
    assert answers["no method"]["id"] == 4, answers["no method"]
    assert all(a["error"]["code"] in (-32700, -32600, -32601, -32602) for a in answers.values()), answers
    assert server.call(20, "get_weather", {"city": "Paris"})["id"] == 20  # still serving


def test_a_request_followed_by_the_end_of_input_is_answered(tmp_path: Path) -> None:
    """A client writes its handshake and one call at once and closes its end: the call's reply still comes."""
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "put_note", "arguments": {"key": "n", "text": "t"}, "_meta": {KEY_META: "k"}}},
    ]
    for trial in range(3):  # it raced before: about one run in eight lost the reply after the note was written
        state = tmp_path / str(trial)
        done = subprocess.run(serve_command(state), input=b"".join(json.dumps(m).encode() + b"\n" for m in lines), capture_output=True, timeout=60)
        replies = [json.loads(line) for line in done.stdout.splitlines()]
        assert done.returncode == 0 and [r["id"] for r in replies] == [0, 1], (trial, done.stdout[-500:], done.stderr[-500:])
        assert effects(state, "put_note") == {"k": 1}


def test_only_utf8_gets_in(raw_stdio: tuple[RawStdio, Path], shared_http: HttpServer) -> None:
    """json.loads would guess UTF-16 or UTF-32 on its own, and let a lone surrogate through in them unchecked."""
    message = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"put_note","arguments":{"key":"\\ud800","text":"t"}}}'
    server, state = raw_stdio
    for encoding in ("utf-16", "utf-32"):
        server.send(raw=message.encode(encoding))
        assert "not UTF-8" in server.reply()["error"]["message"]
        status, body, reply = shared_http.post(message.encode(encoding), {"Authorization": f"Bearer {shared_http.token}", "MCP-Protocol-Version": "2026-07-28"})
        assert status == 400 and reply is not None and "not UTF-8" in reply["error"]["message"], (encoding, status, body[:300])
    assert effects(state, "put_note") == effects(shared_http.state, "put_note") == {}


def test_odd_ids_are_answered_over_http_too(shared_http: HttpServer) -> None:
    """In a 2025-11-25 transport session a call with an id JSON-RPC does not allow would pass for a notification: 202,
    no answer, ever."""
    server = shared_http
    server.legacy_session_call("get_weather", {"city": "Paris"})
    headers = {"Authorization": f"Bearer {server.token}", "Mcp-Session-Id": server.last_session or "", "MCP-Protocol-Version": "2025-11-25"}
    for odd in ("true", "1.5", "null", "[1]", "{}"):
        raw = '{"jsonrpc":"2.0","id":' + odd + ',"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}'
        status, body, reply = server.post(raw.encode(), headers)
        assert status == 400 and reply is not None and "id must be a string or an integer" in reply["error"]["message"], (odd, status, body[:300])


def test_deep_nesting_is_answered_over_http(shared_http: HttpServer) -> None:
    server = shared_http
    for depth in (100, 900, 5000):
        deeper = '{"a":' * depth + "1" + "}" * depth
        raw = ('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"put_note","arguments":' + deeper + "}}").encode()
        for version in ("2025-11-25", "2026-07-28"):
            status, body, message = server.post(raw, {"Authorization": f"Bearer {server.token}", "MCP-Protocol-Version": version})
            assert status == 400 and message is not None and message["id"] == 3, (depth, version, status, body[:300])
            assert "nested deeper than 64" in message["error"]["message"], (depth, version, body[:300])
    assert effects(server.state, "put_note") == {}


@pytest.mark.parametrize(
    ("extra", "named"),
    [(["--http", "99999"], "--http"), (["--http", "0"], "--http"), (["--http", "-1"], "--http"), (["--session", "s1\n"], "session"), (["--session", "../up"], "session")],
)
def test_serve_refuses_bad_values_in_one_line(tmp_path: Path, extra: list[str], named: str) -> None:
    line = one_line_error(run_script(serve_command(tmp_path / "state", *extra, session=None)))
    assert named in line, line


def test_a_server_that_cannot_listen_leaves_nothing_behind(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        line = one_line_error(run_script(serve_command(tmp_path / "state", "--http", str(taken.getsockname()[1]), session=None)))
    assert "cannot listen" in line and not (tmp_path / "state").exists(), line


def test_serve_refuses_a_state_dir_that_is_a_file_or_cannot_be_made_private(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.write_text("not a directory")
    for refused in (state, Path("/proc/1"), tmp_path / ("d" * 250) / ("e" * 250) / ("f" * 250) / ("g" * 250) / ("h" * 250) / ("i" * 250) / "state"):
        line = one_line_error(run_script(serve_command(refused)))
        assert line.startswith("serve_mcp.py: "), line


def test_the_human_side_refuses_bad_input_and_broken_output_in_one_line(tmp_path: Path) -> None:
    server = RawStdio(tmp_path)
    try:
        pending = structured(server.call(1, "transfer_funds", TRANSFER, "k1"))["result"]["pending_id"]
    finally:
        server.close()
    for ttl in ["nan", "inf", "-5", "0", "soon"]:
        assert "--ttl" in one_line_error(approve(tmp_path, "--grant", pending, "--ttl", ttl))
    human = [sys.executable, str(APPROVE), "--state-dir", str(tmp_path), "--session", "s1"]
    for args in (["--reconcile", "x\udcff", "--outcome", "confirmed"], ["--grant", "x\ny"], ["--show", "a", "--grant", "b"]):
        done = subprocess.run([*human, *args], capture_output=True, timeout=60, check=False)
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and b"Traceback" not in done.stderr, (args, done.stderr[-500:])
    listing = subprocess.Popen(human, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert listing.stdout is not None and listing.stderr is not None
    listing.stdout.close()  # the reader went away before the listing was written (| head)
    assert b"Traceback" not in listing.stderr.read() and listing.wait(60) in (0, 1)
    with open("/dev/full", "w") as full:
        done = subprocess.run(human, stdout=full, stderr=subprocess.PIPE, timeout=60, check=False)
    assert done.returncode == 2 and b"Traceback" not in done.stderr, done.stderr[-500:]
    for misuse in (["--outcome", "confirmed"], ["--show", pending, "--ttl", "5"]):  # an option that would be ignored is refused
        assert "go" in one_line_error(approve(tmp_path, *misuse))  # "--ttl goes with --grant", "... go together"
    assert pending_ids(tmp_path) == [pending]  # nothing granted
    denied = approve(tmp_path, "--deny", pending)
    assert denied.returncode == 0 and pending_ids(tmp_path) == [] and approve(tmp_path, "--grant", pending).returncode == 1  # declined: nothing to grant
    env = {**os.environ, "AGENT_BENCH_MCP_HARNESS": "{}"}
    done = subprocess.run(serve_command(tmp_path / "other"), capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL, check=False)
    assert "AGENT_BENCH_MCP_HARNESS" in one_line_error(done)


def test_reconcile_refuses_a_call_that_is_still_running(tmp_path: Path) -> None:
    """The executor of a reversible write asks the human's side to reconcile its own call while it runs."""
    state = tmp_path / "state"
    answers: list[subprocess.CompletedProcess[str]] = []

    def slow_write(args: Any, ctx: ToolContext) -> Any:
        command = [sys.executable, str(APPROVE), "--state-dir", str(state), "--session", "s1", "--reconcile", ctx.call_id, "--outcome", "not_executed"]
        answers.append(run_script(command))
        return {"written": True}

    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    registry = ToolRegistry([ToolSpec("slow_write", "a write that takes a while", schema, RiskClass.REVERSIBLE_WRITE, slow_write)])
    records = SessionRecords(state / "s1")
    boundary = ToolBoundary(registry, records, "s1", "alice", clock=lambda: 1000.0)
    assert boundary.call("slow_write", {}, key="k1").status == "ok"
    assert answers[0].returncode == 1 and "running" in answers[0].stderr, (answers[0].returncode, answers[0].stderr)
    record = records.idempotency.get("k1")
    assert record is not None and record.state.value == "completed" and record.resolution is None  # the reconcile changed nothing
    assert boundary.call("slow_write", {}, key="k1").status == "replayed"
    records.close()
