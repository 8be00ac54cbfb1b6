"""A kill inside one call of a concurrently run turn, pinned against its siblings: real threads, a real kill."""

from __future__ import annotations

import multiprocessing
import threading
import time
from pathlib import Path

import pytest

from harness.faults import FAULT_EXIT_CODE, Fault
from harness.ledger import Binding, LedgerServer, bind_worker
from harness.sibling_order import KILL_FIRST, SIBLINGS_FIRST, killed_siblings
from harness.world import FixtureWorld, arm_schedule

NOTE = {"key": "k", "text": "t"}


def _batch(scratch: Path, binding: Binding, schedule: str, killed_starts_first: bool) -> None:
    """Two calls of one turn in two threads; c1 is killed right after its effect."""
    bind_worker(binding)
    arm_schedule({"c1": {"c2"}}, schedule)
    world = FixtureWorld(scratch, [Fault("tool.kill_after_effect", call_id="c1")], may_kill=True)
    first, second = ("c1", "c2") if killed_starts_first else ("c2", "c1")
    threads = [threading.Thread(target=world.call, args=("put_note", cid, NOTE)) for cid in (first, second)]
    threads[0].start()
    time.sleep(0.2)  # the unforced race would go to whichever thread started first
    threads[1].start()
    for t in threads:
        t.join(30)


@pytest.mark.parametrize("killed_starts_first", [True, False])
@pytest.mark.parametrize(("schedule", "sibling_effects"), [(SIBLINGS_FIRST, 1), (KILL_FIRST, 0)])
def test_the_schedule_decides_whether_the_sibling_ran_before_the_kill(tmp_path: Path, schedule: str, sibling_effects: int, killed_starts_first: bool) -> None:
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        worker = multiprocessing.get_context("fork").Process(target=_batch, args=(tmp_path, Binding(server.address, "r", 0), schedule, killed_starts_first))
        worker.start()
        worker.join(60)
        assert worker.exitcode == FAULT_EXIT_CODE
        counts = server.store.counts("r")
    assert counts["c1"]["effects"] == 1
    assert counts.get("c2", {}).get("effects", 0) == sibling_effects
    if schedule == KILL_FIRST:
        assert "c2" not in counts, "a held sibling never even entered its tool"


def test_only_a_kill_inside_a_tool_with_siblings_has_sibling_orders() -> None:
    class Scenario:
        model_script = ({"tool_calls": [{"id": "a"}, {"id": "b"}]}, {"tool_calls": [{"id": "c"}]})
        faults = (Fault("tool.kill_after_effect", call_id="a"), Fault("tool.kill_before_effect", call_id="c"), Fault("model.kill_before_turn", turn=1))

    assert killed_siblings(Scenario) == {"a": {"b"}}
