"""The ledger is kept by the runner: appends are acknowledged commits, and nothing else gets through."""

from __future__ import annotations

import json
import multiprocessing
import socket
from pathlib import Path

import pytest

from harness.column_side.faults import FAULT_EXIT_CODE
from harness.column_side.world import FixtureWorld
from harness.ledger import Binding, LedgerClient, LedgerServer, bind_worker
from harness.scenarios import Fault

TRANSFER = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 100}


def _killed_right_after_the_effect(scratch: Path, binding: Binding) -> None:
    bind_worker(binding)
    world = FixtureWorld(scratch, [Fault("tool.kill_after_effect", call_id="c1")], may_kill=True)
    world.call("transfer_funds", "c1", TRANSFER)  # dies inside, right after the effect's commit


def test_an_effect_is_counted_before_the_tool_returns_so_a_kill_right_after_it_still_counts(tmp_path: Path) -> None:
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        worker = multiprocessing.get_context("fork").Process(
            target=_killed_right_after_the_effect, args=(tmp_path, Binding(server.address, "contract/s", 3))
        )
        worker.start()
        worker.join(30)
        assert worker.exitcode == FAULT_EXIT_CODE
        assert server.store.counts("contract/s") == {"c1": {"tool": "transfer_funds", "tool_entries": 1, "executor_entries": 1, "effects": 1}}
        assert server.store.counts("contract/s", through_step=2) == {}, "entries carry the driver step they happened in"
        assert server.store.counts("contract/other") == {}, "entries carry their run"


def test_the_channel_only_appends_and_reads(tmp_path: Path) -> None:
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        client = LedgerClient(Binding(server.address, "r", 0))
        client.record("effect", "c1", "put_note", {"key": "k"})
        assert client.effects_of("put_note") == [{"key": "k"}]
        with pytest.raises(RuntimeError, match="unknown ledger entry kind"):
            client.record("erase", "c1", "put_note", {})
        with socket.socket(socket.AF_UNIX) as raw:
            raw.connect(server.address)
            stream = raw.makefile("rwb")
            for attempt in ({"op": "delete", "run": "r", "call_id": "c1"}, {"op": "execute", "run": "r", "sql": "DELETE FROM ledger"}, "not json"):
                stream.write((json.dumps(attempt) if isinstance(attempt, dict) else attempt).encode() + b"\n")
                stream.flush()
                answer = json.loads(stream.readline())
                assert answer["ok"] is False and answer["error"]
        client.close()
        assert server.store.counts("r")["c1"]["effects"] == 1
