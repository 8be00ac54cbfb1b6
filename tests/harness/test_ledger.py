"""The ledger is kept by the runner: appends are acknowledged commits, and nothing else gets through."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.column_side.fixtures.faults import FAULT_EXIT_CODE
from harness.column_side.fixtures.world import FixtureWorld
from harness.ledger import Binding, LedgerClient, bind_worker
from harness.ledger_server import LedgerServer
from harness.scenarios import Fault

TRANSFER = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 100}


def _killed_right_after_the_effect(scratch: Path, binding: Binding) -> None:
    bind_worker(binding)
    world = FixtureWorld(scratch, [Fault("tool.kill_after_effect", call_id="c1")], may_kill=True)
    world.call("transfer_funds", "c1", TRANSFER)  # dies inside, right after the effect's commit


def test_an_effect_is_counted_before_the_tool_returns_so_a_kill_right_after_it_still_counts(tmp_path: Path) -> None:
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        worker = multiprocessing.get_context("fork").Process(
            target=_killed_right_after_the_effect, args=(tmp_path, Binding(server.connector(), "contract/s", 3))
        )
        worker.start()
        worker.join(30)
        assert worker.exitcode == FAULT_EXIT_CODE
        assert server.store.counts("contract/s") == {"c1": {"tool": "transfer_funds", "tool_entries": 1, "executor_entries": 1, "effects": 1}}
        assert server.store.counts("contract/s", through_step=2) == {}, "entries carry the driver step they happened in"
        assert server.store.counts("contract/other") == {}, "entries carry their run"


def test_the_channel_only_appends_and_reads(tmp_path: Path) -> None:
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        channel = server.connector().open("r", 0)
        client = LedgerClient(channel)
        client.record("effect", "c1", "put_note", {"key": "k"})
        assert client.effects_of("put_note") == [{"key": "k"}]
        with pytest.raises(RuntimeError, match="unknown ledger entry kind"):
            client.record("erase", "c1", "put_note", {})
        stream = channel.makefile("rwb")
        for attempt in ({"op": "delete", "run": "r", "call_id": "c1"}, {"op": "execute", "run": "r", "sql": "DELETE FROM ledger"},
                        {"op": "append", "run": "other", "step": 0, "kind": "effect", "call_id": "c9", "tool": "put_note", "payload": {}}, "not json"):
            stream.write((json.dumps(attempt) if isinstance(attempt, dict) else attempt).encode() + b"\n")
            stream.flush()
            answer = json.loads(stream.readline())
            assert answer["ok"] is (attempt != "not json" and attempt["op"] == "append"), answer  # type: ignore[index]
        client.close()
        assert server.store.counts("r") == {"c1": {"tool": "put_note", "tool_entries": 0, "executor_entries": 0, "effects": 1}, "c9": {
            "tool": "put_note", "tool_entries": 0, "executor_entries": 0, "effects": 1}}, "an append names no run: the channel's binding decides"
        assert server.store.counts("other") == {}


def test_runs_and_steps_only_move_forward_and_an_ended_step_takes_nothing_more(tmp_path: Path) -> None:
    """A column cannot reach back into a run or a step that has ended, to add to it or to take from it."""
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        connector = server.connector()
        step0 = LedgerClient(connector.open("contract/a", 0))
        step0.record("effect", "c1", "transfer_funds", {"amount_cents": 1})
        step1 = LedgerClient(connector.open("contract/a", 1))
        with pytest.raises(RuntimeError, match="step 0 of run 'contract/a' has ended"):
            step0.record("effect", "c1", "transfer_funds", {"amount_cents": 1})
        with pytest.raises(RuntimeError, match="step 0 of run 'contract/a' has ended"):
            connector.open("contract/a", 0)
        LedgerClient(connector.open("contract/b", 0)).record("effect", "c1", "put_note", {})
        with pytest.raises(RuntimeError, match="run 'contract/a' has ended"):
            connector.open("contract/a", 2)
        with pytest.raises(RuntimeError, match="has ended"):
            step1.record("effect", "c2", "transfer_funds", {})
        for bad in ("../x", "/etc/passwd", "", 7):
            with pytest.raises(RuntimeError, match="not a run key"):
                connector.open(bad, 0)  # type: ignore[arg-type]
        assert server.store.counts("contract/a")["c1"]["effects"] == 1
        assert len(server.refused) == 8  # each refusal recorded: a test tells "blocked" from "never tried"


def test_the_counts_are_the_runners_memory_not_the_journal_file(tmp_path: Path) -> None:
    """Deleting rows from the journal (what a column that could reach the file would do) changes no count."""
    journal = tmp_path / "ledger.sqlite"
    with LedgerServer(journal) as server:
        client = LedgerClient(server.connector().open("r", 0))
        client.record("effect", "c1", "transfer_funds", {"amount_cents": 5})
        client.record("effect", "c1", "transfer_funds", {"amount_cents": 5})
        with sqlite3.connect(journal) as db:
            db.execute("DELETE FROM ledger WHERE seq > 1")
        assert server.store.counts("r")["c1"]["effects"] == 2
        assert client.effects_of("transfer_funds") == [{"amount_cents": 5}, {"amount_cents": 5}]


def test_a_column_process_finds_no_ledger_address_anywhere(tmp_path: Path) -> None:
    """The channel is an inherited descriptor: no socket file, no address on a command line or in the environment."""
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        code = "import os, sys; print(os.readlink(f'/proc/self/fd/{sys.argv[1]}'))"
        done = subprocess.run([sys.executable, "-c", code, str(server.column_fd)], pass_fds=(server.column_fd,), capture_output=True, text=True, check=True)
        assert done.stdout.startswith("socket:["), done.stdout  # an anonymous socket, not a path
    assert not [p for p in tmp_path.rglob("*") if p.is_socket()]


def test_a_runs_counts_reach_the_column_whatever_their_size(tmp_path: Path) -> None:
    """The connector's answers are single datagrams; a run's counts come on a stream of their own (a 1,000-turn run's
    outgrow 64 KiB)."""
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        connector = server.connector()
        client = LedgerClient(connector.open("r", 0))
        for n in range(3000):
            client.record("effect", f"call-{n:05}", "put_note", {"key": n})
        counts = connector.counts("r", 0)
        assert len(json.dumps(counts)) > 1 << 17 and counts == server.store.counts("r", 0)


def test_a_column_cannot_exhaust_the_runner_through_its_channels(tmp_path: Path) -> None:
    """Channels open at once are bounded (each is a descriptor and a thread of the runner's), a closed one frees its
    place, and a request line too long to hold closes its channel without being read whole."""
    from harness.ledger_server import MAX_CHANNELS, MAX_LINE

    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        connector = server.connector()
        channels = [connector.open("r", 0) for _ in range(MAX_CHANNELS)]
        with pytest.raises(RuntimeError, match=f"{MAX_CHANNELS} channels are open already"):
            connector.open("r", 0)
        channels.pop().close()
        deadline = time.monotonic() + 10
        while True:  # the channel's thread notices the close, then frees its place
            try:
                channels.append(connector.open("r", 0))
                break
            except RuntimeError:
                assert time.monotonic() < deadline, "a closed channel never freed its place"
                time.sleep(0.05)
        flood = channels.pop()
        flood.sendall(b"x" * (MAX_LINE + 10))
        assert flood.recv(1) == b"", "the server closes a channel whose request line is too long"
        assert any("the channel was closed" in r for r in server.refused)
        LedgerClient(channels[0]).record("effect", "c1", "put_note", {})
        assert server.store.counts("r")["c1"]["effects"] == 1


def test_an_answer_left_behind_by_a_killed_asker_is_never_taken_for_anothers(tmp_path: Path) -> None:
    """A worker killed between its request on the shared connector and the answer leaves that answer queued: the next
    asker (the supervisor reading counts, the next worker opening its channel) must not take it for its own."""
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        connector = server.connector()
        LedgerClient(connector.open("r", 0)).record("effect", "c1", "put_note", {})
        pid = os.fork()
        if pid == 0:  # the worker: asks, and dies before the answer
            connector._socket.send(json.dumps({"op": "open", "run": "r", "step": 1, "id": "killed"}).encode())
            os._exit(0)
        os.waitpid(pid, 0)
        time.sleep(0.2)  # the answer, with a channel, is queued on the connector
        assert connector.counts("r", 1) == server.store.counts("r", 1)
        LedgerClient(connector.open("r", 1)).record("effect", "c2", "put_note", {})
        assert server.store.counts("r")["c2"]["effects"] == 1
