"""The scripted wire server (``harness.runner_side.run.servers.wire``) against a local flood (issue 33): half-sent request
heads, bodies that never end, more connections than its cap, more requests in one run than it keeps, and runs under
made-up modes or schedules. It runs in the runner's process, so what a flood holds there is the runner's.

Each test is an attack that worked on the server before it was bounded: connections were held for ever, every
request was kept, any mode opened a run. The servers here run with small deadlines (``ConnectionBounds``) so each
test takes seconds; every server in the harness runs with the defaults (``WIRE_BOUNDS``).
"""

from __future__ import annotations

import http.client
import json
import os
import select
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from harness.http_bounds import ConnectionBounds
from harness.runner_side.observe.wire import wire_observable
from harness.runner_side.run.servers.wire import MAX_BODY_BYTES, MAX_RUNS_PER_SCENARIO, WireServer
from harness.scenarios import load_scenarios

BASIC = next(s for s in load_scenarios() if s.id == "basic_react_loop")
COLUMN = "col"
RUN = f"wire/{BASIC.id}"
FIRST_TURN = json.dumps({"model": "m", "messages": [{"role": "system", "content": BASIC.system_prompt}, {"role": "user", "content": BASIC.user_input}]}).encode()


@contextmanager
def serving(bounds: ConnectionBounds, **limits: int) -> Iterator[tuple[WireServer, str]]:
    """A running server over basic_react_loop and one column's token; it must have raised nothing by the end."""
    with WireServer([BASIC], bounds=bounds, **limits) as server:
        token = server.base_url(COLUMN).rsplit("/", 1)[1]
        yield server, token
        assert server.errors == []


def path(token: str, mode: str = "wire", key: str = BASIC.id, step: int = 0) -> str:
    return f"/{token}/{mode}/{key}/{step}/v1/chat/completions"


def post(server: WireServer, target: str, body: bytes = FIRST_TURN) -> tuple[int, dict[str, str]]:
    """One whole request on a connection of its own: (status, headers)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("POST", target, body=body, headers={"content-type": "application/json"})
        response = connection.getresponse()
        response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closes the connection (an end of stream, or a reset) within ``within`` seconds, sending nothing."""
    sock.settimeout(within)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def still_open(sockets: list[socket.socket]) -> bool:
    """No socket has anything to read yet: the server has closed none of them."""
    readable, _, _ = select.select(sockets, [], [], 0)
    return not readable


# -- connections: heads, bodies, the cap ------------------------------------------------------------------------------


def test_half_sent_heads_are_closed_after_the_head_timeout_while_a_whole_request_is_answered() -> None:
    """40 connections each send half a request head and stall (every other one after a whole request and its answer):
    a legitimate request is answered while they hang, each is closed once the head timeout passes (not before), and
    the server's descriptors go back to what they were."""
    bounds = ConnectionBounds(max_connections=64, head_timeout_s=1.0, body_timeout_s=30.0)
    with serving(bounds) as (server, token):
        assert post(server, path(token))[0] == 200  # warm: whatever the server opens once
        before = open_descriptors()
        held = []
        for i in range(40):
            sock = socket.create_connection(("127.0.0.1", server.port))
            if i % 2:  # a whole request first: the deadline runs again from its answer
                head = f"POST {path(token)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {len(FIRST_TURN)}\r\n\r\n"
                sock.sendall(head.encode() + FIRST_TURN)
                response = http.client.HTTPResponse(sock)
                response.begin()
                assert response.status == 200 and response.read()
            sock.sendall(f"POST {path(token)} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
            held.append(sock)
        opened = time.monotonic()
        status, headers = post(server, path(token))
        assert (status, headers["x-scripted-turn"]) == (200, "0")  # answered while they hang
        assert still_open(held), "closed before the head timeout"
        assert all(closed_by_server(sock, 10) for sock in held), "the server kept a connection whose request head never ended"
        assert time.monotonic() - opened >= bounds.head_timeout_s - 0.2
        for sock in held:
            sock.close()
        time.sleep(0.2)
        assert open_descriptors() <= before + 2
        assert post(server, path(token))[0] == 200


def test_connections_beyond_the_cap_are_closed_at_once_and_descriptors_stay_bounded() -> None:
    """40 connections that send half a head, against a cap of 8 and a head timeout longer than the test: the server
    holds at most 8 of them (the others are closed at once, without waiting for any deadline), and once the held ones
    go, a request gets in again."""
    bounds = ConnectionBounds(max_connections=8, head_timeout_s=60.0, body_timeout_s=60.0)
    with serving(bounds) as (server, token):
        assert post(server, path(token))[0] == 200
        time.sleep(0.2)  # that connection's close reaches the server
        before = open_descriptors()
        held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(40)]
        for sock in held:
            try:
                sock.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            except ConnectionError:  # already closed by the server
                pass
        time.sleep(0.5)  # the server accepts them all
        servers_side = open_descriptors() - before - len(held)
        refused: set[socket.socket] = set()
        deadline = time.monotonic() + 5
        while len(refused) < len(held) - bounds.max_connections and time.monotonic() < deadline:
            readable, _, _ = select.select([sock for sock in held if sock not in refused], [], [], 0.1)
            refused |= {sock for sock in readable if closed_by_server(sock, 0.1)}
        assert servers_side <= bounds.max_connections + 2, servers_side
        assert len(refused) >= len(held) - bounds.max_connections, len(refused)
        for sock in held:
            sock.close()
        time.sleep(0.2)
        assert post(server, path(token))[0] == 200


def test_a_cap_full_of_connections_that_never_send_a_head_still_lets_a_whole_request_in() -> None:
    """At the cap the connection that waited longest for its head goes, not the newcomer: a flood of idle connections
    (another column, any local client) cannot keep a column's wire run from the server."""
    bounds = ConnectionBounds(max_connections=8, head_timeout_s=60.0, body_timeout_s=60.0)
    with serving(bounds) as (server, token):
        held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(bounds.max_connections)]
        time.sleep(0.3)  # the server accepts them all: the cap is full
        for _ in range(3):
            status, headers = post(server, path(token))
            assert (status, headers["x-scripted-turn"]) == (200, "0")
        assert sum(closed_by_server(sock, 0.5) for sock in held) == 1  # the oldest idle one made room (each request then left its place)
        for sock in held:
            sock.close()


@pytest.mark.parametrize(
    "mode, head, sent",
    [
        ("wire", "Content-Length: 1000", b'{"model": "m"'),  # a length never reached
        ("wire", "Transfer-Encoding: chunked", b'5\r\n{"mod\r\n'),  # a chunked body never closed
        ("made-up", "Content-Length: 1000", b'{"model": "m"'),  # answered (404) before its body: the body is still owed
    ],
    ids=["content-length", "chunked", "answered-first"],
)
def test_a_body_that_never_ends_is_closed_after_the_body_deadline_and_nothing_is_recorded(mode: str, head: str, sent: bytes) -> None:
    """A request whose body never ends holds its connection only until the body deadline (the head deadline is longer
    than the test: the body's closes it); the run records nothing of it, and a whole request is answered after."""
    bounds = ConnectionBounds(max_connections=64, head_timeout_s=60.0, body_timeout_s=1.0)
    with serving(bounds) as (server, token):
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.sendall(f"POST {path(token, mode)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{head}\r\n\r\n".encode() + sent)
        started = time.monotonic()
        if mode != "wire":
            response = http.client.HTTPResponse(sock)
            response.begin()
            assert response.status == 404 and response.read()
        assert closed_by_server(sock, 10), "the server kept a connection whose body never ended"
        assert time.monotonic() - started >= bounds.body_timeout_s - 0.2
        sock.close()
        assert server.requests(COLUMN, RUN) == []
        assert post(server, path(token))[0] == 200


def test_a_body_sent_a_byte_at_a_time_is_closed_at_the_deadline_not_kept_alive_by_each_byte() -> None:
    """The body deadline runs from the head, not from the last byte: a client trickling its body keeps nothing open."""
    bounds = ConnectionBounds(max_connections=64, head_timeout_s=60.0, body_timeout_s=1.0)
    with serving(bounds) as (server, token):
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.sendall(f"POST {path(token)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n".encode())
        started, closed = time.monotonic(), False
        for _ in range(50):  # at most 5 s of trickling
            try:
                sock.sendall(b" ")
            except ConnectionError:
                closed = True
                break
            if closed_by_server(sock, 0.1):
                closed = True
                break
        sock.close()
        assert closed and time.monotonic() - started < bounds.body_timeout_s + 2


# -- what a run keeps ---------------------------------------------------------------------------------------------


def test_a_run_keeps_its_bound_of_requests_and_says_how_many_it_dropped() -> None:
    """Eight requests in a run bounded at five: every one is answered, five are kept, the last kept says three came
    after it unrecorded, and the run's wire observable counts all eight and the three dropped."""
    with serving(ConnectionBounds(max_connections=64), max_requests_per_run=5) as (server, token):
        answers = [post(server, path(token, step=n)) for n in range(8)]
        records = server.requests(COLUMN, RUN)
    assert [(status, headers["x-scripted-turn"]) for status, headers in answers] == [(200, "0")] * 8
    assert [r["step"] for r in records] == [0, 1, 2, 3, 4]
    assert [r.get("dropped_after") for r in records] == [None, None, None, None, 3]
    observable = wire_observable(records, [], [], None)
    assert (observable["attempts"], observable["dropped"], len(observable["calls"])) == (8, 3, 5)


def test_a_run_keeps_a_bounded_number_of_body_bytes() -> None:
    """Two requests of 5 MiB each: the first is kept, the second (past the run's bytes, never less than one whole body)
    is answered and counted as dropped."""
    big = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * (5 << 20)}]}).encode()
    assert len(big) < MAX_BODY_BYTES
    with serving(ConnectionBounds(max_connections=64), max_recorded_bytes_per_run=1) as (server, token):
        assert [post(server, path(token, step=n), big)[0] for n in range(2)] == [200, 200]
        records = server.requests(COLUMN, RUN)
    assert [(r["step"], r.get("dropped_after")) for r in records] == [(0, 1)]


def test_a_run_under_no_mode_of_the_harness_is_refused_and_nothing_is_kept() -> None:
    """A request under a mode the harness does not have is a 404, and the server keeps no run for it; the same request
    under the wire mode is answered and kept."""
    with serving(ConnectionBounds(max_connections=64)) as (server, token):
        assert post(server, path(token, mode="made-up"))[0] == 404
        assert post(server, path(token, mode="wire"))[0] == 200
        assert server.requests(COLUMN, f"made-up/{BASIC.id}") == []
        assert len(server.requests(COLUMN, RUN)) == 1


def test_made_up_schedules_open_at_most_the_bound_of_runs_per_scenario() -> None:
    """Schedule names a column makes up (``<scenario>@<name>``) open runs only up to ``MAX_RUNS_PER_SCENARIO`` per
    scenario; past it a new one is answered 429 and not kept, while a run already open still answers."""
    with serving(ConnectionBounds(max_connections=64)) as (server, token):
        opened = [post(server, path(token, key=f"{BASIC.id}@s{n}"))[0] for n in range(MAX_RUNS_PER_SCENARIO)]
        assert opened == [200] * MAX_RUNS_PER_SCENARIO
        assert post(server, path(token, key=f"{BASIC.id}@one-more"))[0] == 429
        assert server.requests(COLUMN, f"wire/{BASIC.id}@one-more") == []
        assert post(server, path(token, key=f"{BASIC.id}@s0", step=1))[0] == 200
