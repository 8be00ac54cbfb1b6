"""A server forked from this process (``harness.column_side.mcp.forked``): the program its script is, over two real
pipes, its exit status read by the parent, and nothing of one server's memory in the next."""

from __future__ import annotations

import os
import select
import threading
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.column_side.fixtures.faults import FAULT_EXIT_CODE
from harness.column_side.mcp import KEY_META
from harness.column_side.mcp.client import McpTools, server_arguments
from harness.column_side.mcp.forked import ForkedServer
from harness.column_side.mcp.session import HARNESS_ENV, HarnessWiring
from harness.columns import ROOT
from harness.errors import HarnessError
from harness.fixture_tools import FIXTURE_TOOLS
from harness.ledger_server import LedgerServer

SERVE = str(ROOT / "scripts" / "serve_mcp.py")
_seen_by_servers: list[str] = []  # a forked script appends to it: the next fork must not see that

PROGRAM = """\
import os, sys
parent = sys.modules[os.environ["FORKED_TEST_MODULE"]]  # this test module, in the memory the fork started from
parent._seen_by_servers.append("x")
line = sys.stdin.buffer.readline()
sys.stdout.buffer.write(b"%d %s %s %s|" % (len(parent._seen_by_servers), sys.argv[1].encode(), os.environ["FORKED_TEST"].encode(), line.strip()))
sys.stdout.flush()
rest = sys.stdin.buffer.read()  # to the end of input: no copy of the parent's end is left open in the child
sys.exit(int(sys.argv[2]))
"""


def finish(server: ForkedServer, send: bytes) -> tuple[bytes, int]:
    """Send ``send``, end the input, read the output to its end and the exit status."""
    os.set_blocking(server.to_server, True)
    os.write(server.to_server, send)
    os.close(server.to_server)
    out = b""
    while select.select([server.from_server], [], [], 10)[0] and (chunk := os.read(server.from_server, 4096)):
        out += chunk
    os.close(server.from_server)
    return out, os.waitstatus_to_exitcode(os.waitpid(server.pid, 0)[1])


def in_child(run: Callable[[], None]) -> int:
    """``run`` in a forked child (a driver step's worker), and its exit code."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            run()
        except BaseException:
            traceback.print_exc()
            code = 1
        os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


@pytest.fixture
def program(tmp_path: Path) -> str:
    script = tmp_path / "program.py"
    script.write_text(PROGRAM, encoding="utf-8")
    return str(script)


def test_a_forked_script_gets_its_pipes_argv_and_environment_and_its_status_is_read(program: str) -> None:
    out, status = finish(ForkedServer(program, ["first", "7"], {"FORKED_TEST": "wired", "FORKED_TEST_MODULE": __name__}), b"hello\nmore")
    assert (out, status) == (b"1 first wired hello|", 7)
    assert "FORKED_TEST" not in os.environ and _seen_by_servers == []  # the parent's memory is the parent's


def test_each_fork_starts_from_the_parent_never_from_an_earlier_server(program: str) -> None:
    _seen_by_servers.append("the parent's")
    try:
        seen = [finish(ForkedServer(program, [str(n), "0"], {"FORKED_TEST": "w", "FORKED_TEST_MODULE": __name__}), b"-\n")[0] for n in range(2)]
    finally:
        _seen_by_servers.clear()
    assert seen == [b"2 0 w -|", b"2 1 w -|"]  # the parent's entry and its own: never the server's before


def test_a_script_that_raises_exits_1_and_its_refusal_2(tmp_path: Path) -> None:
    script = tmp_path / "raises.py"
    script.write_text("raise RuntimeError('boom')\n", encoding="utf-8")
    assert finish(ForkedServer(str(script), [], {}), b"")[1] == 1
    assert finish(ForkedServer(SERVE, ["--http", "0"], {}), b"")[1] == 2  # serve_mcp.py's own argparse refusal


def test_no_fork_while_another_thread_runs() -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with pytest.raises(HarnessError, match="one thread"):
            ForkedServer(SERVE, [], {})
    finally:
        stop.set()
        other.join()


def test_the_engine_s_client_meets_serve_mcp_forked_over_stdio(tmp_path: Path) -> None:
    tools = ["get_weather", "transfer_funds"]
    server = ForkedServer(SERVE, server_arguments(str(tmp_path / "mcp"), "s1", "alice", tools), {})
    with McpTools(server) as client:
        specs = {spec.name: spec for spec in client.tool_specs()}
        body = client.call_raw("get_weather", {"city": "Paris"}, {})
    assert sorted(specs) == tools and specs["transfer_funds"].risk.value == FIXTURE_TOOLS["transfer_funds"].risk.value
    assert body["status"] == "ok"
    assert server.returncode == 0  # its input ended with the client, and it exited on its own


def test_a_kill_fault_in_a_tool_kills_the_server_and_its_worker_with_its_code_and_the_next_server_knows_only_the_disk(tmp_path: Path) -> None:
    note = {"key": "n1", "text": "hello"}
    answers = tmp_path / "answers"
    with LedgerServer(tmp_path / "ledger.sqlite") as ledger:

        def step(index: int) -> None:  # a driver step's worker: the server forked first, then the client
            trace = str(tmp_path / "trace.jsonl")
            channel = ledger.connector().open("run", index).detach()  # the step's channel, inherited by the forked server
            wiring = HarnessWiring(str(tmp_path), [{"point": "tool.kill_before_effect", "call_id": "k1"}], (channel, "run", index), 0.0, trace)
            server = ForkedServer(SERVE, server_arguments(str(tmp_path / "mcp"), "s1", "alice", ["put_note"]), {HARNESS_ENV: wiring.to_env()})
            with McpTools(server) as client:
                answers.write_text(client.call_raw("put_note", note, {KEY_META: "k1"})["status"], encoding="utf-8")

        assert in_child(lambda: step(0)) == FAULT_EXIT_CODE  # the fault ended the server, and the worker went down with it
        assert not answers.exists()
        assert in_child(lambda: step(1)) == 0  # a new server on the same session directory: the fault fired once
        counts = ledger.store.counts("run")
    assert answers.read_text(encoding="utf-8") == "uncertain"  # its key's record was left in progress: never run again
    assert (counts["k1"]["executor_entries"], counts["k1"]["effects"]) == (1, 0)
