"""A kill inside one call of a concurrently run turn, pinned against its siblings: real threads, a real kill."""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from harness.column_side.fixtures.faults import FAULT_EXIT_CODE, FAULTS_FILE, SCHEDULE_FAILED_EXIT_CODE, open_faults_db, schedule_failures
from harness.column_side.fixtures.sibling_order import KILL_FIRST, SIBLINGS_FIRST, earlier_kills, killed_siblings, raising_siblings
from harness.column_side.fixtures.world import FixtureWorld, arm_schedule
from harness.ledger import Binding, bind_worker
from harness.ledger_server import LedgerServer
from harness.scenarios import Fault

NOTE = {"key": "k", "text": "t"}
KILL_C1 = Fault("tool.kill_after_effect", call_id="c1")


def _glue_call(world: FixtureWorld, call_id: str) -> None:
    """What contract glue does: one hand-over around every attempt; a failed attempt is retried."""
    with world.handover(call_id):
        for _ in range(3):
            try:
                world.call("put_note", call_id, NOTE)
                return
            except Exception:
                continue


def _batch(scratch: Path, binding: Binding, schedule: str, faults: list[Fault], first: str, through_glue: bool) -> None:
    """Two calls of one turn in two threads, ``first`` started 0.2 s before the other (the race it would win)."""
    bind_worker(binding)
    arm_schedule({"c1": {"c2"}}, schedule)
    world = FixtureWorld(scratch, faults, may_kill=True)
    run: Any = (lambda cid: _glue_call(world, cid)) if through_glue else (lambda cid: world.call("put_note", cid, NOTE))
    second = "c2" if first == "c1" else "c1"
    threads = [threading.Thread(target=run, args=(cid,)) for cid in (first, second)]
    threads[0].start()
    time.sleep(0.2)
    threads[1].start()
    for t in threads:
        t.join(30)


def _counts(tmp_path: Path, *args: Any) -> dict[str, Any]:
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        worker = multiprocessing.get_context("fork").Process(target=_batch, args=(tmp_path, Binding(server.connector(), "r", 0), *args))
        worker.start()
        worker.join(60)
        assert worker.exitcode == FAULT_EXIT_CODE
        return server.store.counts("r")


@pytest.mark.parametrize("through_glue", [False, True])
def test_kill_first_holds_a_sibling_that_would_have_won_the_race(tmp_path: Path, through_glue: bool) -> None:
    counts = _counts(tmp_path, KILL_FIRST, [KILL_C1], "c2", through_glue)
    assert counts["c1"]["effects"] == 1 and "c2" not in counts, "the held sibling never even entered its tool"


@pytest.mark.parametrize("through_glue", [False, True])
def test_siblings_first_holds_the_kill_until_a_later_sibling_finished(tmp_path: Path, through_glue: bool) -> None:
    counts = _counts(tmp_path, SIBLINGS_FIRST, [KILL_C1], "c1", through_glue)
    assert counts["c1"]["effects"] == 1 and counts["c2"]["effects"] == 1


def test_a_failed_first_attempt_inside_one_hand_over_does_not_release_the_held_sibling(tmp_path: Path) -> None:
    """The killed call's first attempt raises and the glue retries it: the call has not finished, so the sibling waits on."""
    faults = [Fault("tool.raise_before_effect", call_id="c1"), KILL_C1]
    counts = _counts(tmp_path, KILL_FIRST, faults, "c2", True)
    assert counts["c1"] == {"tool": "put_note", "tool_entries": 2, "executor_entries": 2, "effects": 1}
    assert "c2" not in counts


def test_only_a_kill_inside_a_tool_with_siblings_has_sibling_orders() -> None:
    class Scenario:
        model_script = ({"tool_calls": [{"id": "a"}, {"id": "b"}]}, {"tool_calls": [{"id": "c"}]}, {"tool_calls": [{"id": "d"}, {"id": "e"}]})
        faults = (
            Fault("tool.kill_after_effect", call_id="a"),
            Fault("tool.kill_before_effect", call_id="c"),  # alone in its turn
            Fault("tool.kill_after_effect", call_id="d"),
            Fault("tool.kill_after_effect", call_id="e"),  # two kills in one turn: neither is the other's sibling
            Fault("model.kill_before_turn", turn=1),
        )

    assert killed_siblings(Scenario) == {"a": {"b"}}
    assert raising_siblings(Scenario) == {}

    class Raising(Scenario):
        faults = (Fault("tool.timeout_after_effect", call_id="a"), Fault("tool.raise_before_effect", call_id="c"), Fault("tool.kill_after_effect", call_id="d"))

    assert raising_siblings(Raising) == {"a": {"b"}} and killed_siblings(Raising) == {"d": {"e"}}


def _kill_with_a_failing_hook(path: str) -> None:
    from harness.column_side.fixtures.faults import FaultPlan, open_faults_db

    plan = FaultPlan([KILL_C1], open_faults_db(path), may_kill=True)

    def cannot(call_id: str | None) -> None:
        raise RuntimeError(f"cannot order the writes against the kill of {call_id}")

    plan.on_kill(cannot)
    plan.fire("tool.kill_after_effect", call_id="c1")


def test_a_kill_hook_that_cannot_force_its_order_ends_the_worker_with_the_reason_never_a_retry(tmp_path: Path) -> None:

    path = str(tmp_path / "faults.sqlite")
    worker = multiprocessing.get_context("fork").Process(target=_kill_with_a_failing_hook, args=(path,))
    worker.start()
    worker.join(30)
    assert worker.exitcode == SCHEDULE_FAILED_EXIT_CODE
    assert schedule_failures(path) == ["RuntimeError: cannot order the writes against the kill of c1"]


def _raising_batch(scratch: Path, binding: Binding, knows_dispatch: bool, out: Any, committed: str | None = None, spent_kill: bool = False) -> None:
    """c1 raises after its effect (``tool.timeout_after_effect``) at once; c2, of the same turn, starts 0.2 s later: the
    moment c1's exception leaves the tool is when a framework like ``ToolNode`` cancels what has not started. With
    ``committed`` the column also waits for the framework to take c2's result in: it says so, or (``"fails"``) cannot.
    With ``spent_kill`` c1 also had a kill after its effect, fired in an earlier process (its siblings are ordered
    against that kill, under ``kill_first``)."""
    bind_worker(binding)
    faults = [Fault("tool.timeout_after_effect", call_id="c1")]
    if spent_kill:
        faults.insert(0, Fault("tool.kill_after_effect", call_id="c1"))
        open_faults_db(str(scratch / FAULTS_FILE)).execute("INSERT INTO faults_fired (fault_index, point) VALUES (0, 'tool.kill_after_effect')")
    arm_schedule({"c1": {"c2"}} if spent_kill else {}, KILL_FIRST if spent_kill else None, {"c1": {"c2"}})
    world = FixtureWorld(scratch, faults, may_kill=True)
    events: list[str] = []

    def taken_in(held: set[str]) -> None:
        if committed == "fails":
            raise RuntimeError("the framework's tasks are out of reach")
        events.append(f"committed but {sorted(held)}")

    if knows_dispatch:
        world.know_dispatch(lambda: {"c1", "c2"}, taken_in if committed else None)

    def c1() -> None:
        try:
            world.call("put_note", "c1", NOTE)
        except TimeoutError:
            events.append("c1 raised")

    def c2() -> None:
        world.call("put_note", "c2", NOTE)
        events.append("c2 finished")

    first = threading.Thread(target=c1)
    first.start()
    time.sleep(0.2)
    second = threading.Thread(target=c2)
    second.start()
    for t in (first, second):
        t.join(30)
    out.send(events)


@pytest.mark.parametrize(("knows_dispatch", "order"), [(True, ["c2 finished", "c1 raised"]), (False, ["c1 raised", "c2 finished"])])
def test_a_raising_call_waits_for_its_dispatched_siblings_before_it_raises(tmp_path: Path, knows_dispatch: bool, order: list[str]) -> None:
    """Pinned where the column can tell what its framework dispatched together; left alone (a race --check would see) where not."""
    receiver, sender = multiprocessing.get_context("fork").Pipe(duplex=False)
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        worker = multiprocessing.get_context("fork").Process(target=_raising_batch, args=(tmp_path, Binding(server.connector(), "r", 0), knows_dispatch, sender))
        worker.start()
        assert receiver.poll(60)
        assert receiver.recv() == order
        worker.join(60)
        assert server.store.counts("r")["c2"]["effects"] == 1


def test_a_raising_call_waits_until_the_framework_took_its_siblings_results_in(tmp_path: Path) -> None:
    """Found by --check in CI (LangChain, ``two_transfers_flaky_note_kill@write_landed+kill_first``): a sibling's body had
    ended, the raise ended LangGraph's step before the sibling's task committed its writes, and a later step ran the
    transfer again, by chance. The column's wait comes after the siblings' bodies and before the raise."""
    receiver, sender = multiprocessing.get_context("fork").Pipe(duplex=False)
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        args = (tmp_path, Binding(server.connector(), "r", 0), True, sender, "waits")
        worker = multiprocessing.get_context("fork").Process(target=_raising_batch, args=args)
        worker.start()
        assert receiver.poll(60)
        assert receiver.recv() == ["c2 finished", "committed but []", "c1 raised"]
        worker.join(60)


def test_a_killed_call_that_raises_once_its_kill_is_spent_waits_for_its_siblings_results_too(tmp_path: Path) -> None:
    """Found by the crash sweep (LangChain, ``uncertain_then_second_transfer__after_t1@write_landed+kill_first``): on the
    resume after the kill, the killed call timed out after its effect; it waited for its sibling's body, not for the
    framework to take the sibling's result in, and one sweep in three ran the sibling again at a later step."""
    receiver, sender = multiprocessing.get_context("fork").Pipe(duplex=False)
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        args = (tmp_path, Binding(server.connector(), "r", 0), True, sender, "waits", True)
        worker = multiprocessing.get_context("fork").Process(target=_raising_batch, args=args)
        worker.start()
        assert receiver.poll(60)
        assert receiver.recv() == ["c2 finished", "committed but []", "c1 raised"]
        worker.join(60)


def test_a_column_that_cannot_wait_for_the_commit_fails_the_schedule(tmp_path: Path) -> None:
    """A wait that cannot be made is a schedule not forced: the worker ends, never a raise that raced the commit."""
    receiver, sender = multiprocessing.get_context("fork").Pipe(duplex=False)
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        args = (tmp_path, Binding(server.connector(), "r", 0), True, sender, "fails")
        worker = multiprocessing.get_context("fork").Process(target=_raising_batch, args=args)
        worker.start()
        worker.join(60)
    assert worker.exitcode == SCHEDULE_FAILED_EXIT_CODE
    assert schedule_failures(tmp_path / FAULTS_FILE) == ["the siblings-before-the-raise order: RuntimeError: the framework's tasks are out of reach"]


def _read_only_batch(scratch: Path, binding: Binding) -> None:
    """c1 (kill armed after its effect) and c2 in two threads: c1 reads a balance, so it has no effect to die after."""
    bind_worker(binding)
    arm_schedule({"c1": {"c2"}}, KILL_FIRST)
    world = FixtureWorld(scratch, [KILL_C1], may_kill=True)
    threads = [threading.Thread(target=world.call, args=("get_balance", cid, {"account": "ACC-1"})) for cid in ("c1", "c2")]
    for t in threads:
        t.start()
        time.sleep(0.2)
    for t in threads:
        t.join(30)


def test_kill_first_lets_the_sibling_go_when_the_killed_call_ends_without_its_kill(tmp_path: Path) -> None:
    """Found by scripts/explore.py: a kill after the effect of a read-only call never fires; under kill_first the sibling
    waited for the killed call to finish while it waited for the sibling, until the schedule failed after WAIT_S."""
    started = time.monotonic()
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        worker = multiprocessing.get_context("fork").Process(target=_read_only_batch, args=(tmp_path, Binding(server.connector(), "r", 0)))
        worker.start()
        worker.join(60)
        counts = server.store.counts("r")
    assert worker.exitcode == 0 and time.monotonic() - started < 5
    assert counts["c1"]["tool_entries"] == counts["c2"]["tool_entries"] == 1



def _kill_beside_raise(scratch: Path, binding: Binding, order: str) -> None:
    """A later step of a turn with a kill in c1 (already fired: not in this worker's plan) and a timeout after c2's effect:
    c1 waits for its sibling c2 before it ends, and c2, a raising call, for its dispatched siblings before it raises."""
    bind_worker(binding)
    arm_schedule({"c1": {"c2"}}, order, {"c2": {"c1"}})
    world = FixtureWorld(scratch, [Fault("tool.timeout_after_effect", call_id="c2")], may_kill=True)
    world.know_dispatch(lambda: {"c1", "c2"})

    def call(cid: str) -> None:
        with world.handover(cid), contextlib.suppress(TimeoutError):
            world.call("put_note", cid, NOTE)

    threads = [threading.Thread(target=call, args=(cid,)) for cid in ("c1", "c2")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)


@pytest.mark.parametrize("order", [KILL_FIRST, SIBLINGS_FIRST])
def test_a_killed_call_and_a_raising_sibling_do_not_wait_for_each_other(tmp_path: Path, order: str) -> None:
    """Found by scripts/explore.py: each waited for the other to finish until the schedule failed after WAIT_S."""
    started = time.monotonic()
    with LedgerServer(tmp_path / "ledger.sqlite") as server:
        worker = multiprocessing.get_context("fork").Process(target=_kill_beside_raise, args=(tmp_path, Binding(server.connector(), "r", 0), order))
        worker.start()
        worker.join(60)
        counts = server.store.counts("r")
    assert worker.exitcode == 0 and time.monotonic() - started < 5
    assert counts["c1"]["effects"] == counts["c2"]["effects"] == 1


def _two_kills(scratch: Path, binding: Binding) -> None:
    """c1 and c2 of one turn, each with a kill before its effect; c2 is handed over 0.2 s before c1 (the race it would win)."""
    bind_worker(binding)
    arm_schedule({}, None, {}, {"c2": {"c1"}})
    world = FixtureWorld(scratch, [Fault("tool.kill_before_effect", call_id="c1"), Fault("tool.kill_before_effect", call_id="c2")], may_kill=True)
    threads = [threading.Thread(target=world.call, args=("put_note", cid, NOTE)) for cid in ("c2", "c1")]
    for t in threads:
        t.start()
        time.sleep(0.2)
    for t in threads:
        t.join(30)


def test_of_two_kills_in_one_turn_the_earlier_calls_fires_first() -> None:
    """Found by scripts/explore.py (seed 2, example 19): which of two kills fired decided what the other had entered."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch, LedgerServer(Path(scratch) / "ledger.sqlite") as server:
        worker = multiprocessing.get_context("fork").Process(target=_two_kills, args=(Path(scratch), Binding(server.connector(), "r", 0)))
        worker.start()
        worker.join(60)
        counts = server.store.counts("r")
    assert worker.exitcode == FAULT_EXIT_CODE
    assert counts["c1"]["executor_entries"] == 1 and "c2" not in counts  # c2 held at its hand-over, before its entry counted


def test_a_kill_after_the_intent_checkpoint_orders_its_siblings_too() -> None:
    """Found by scripts/explore.py (seed 2, example 11): contract glue fires the engine's checkpoint kill inside the call's
    hand-over, so a sibling listed beside it ran before the kill or not by chance in LangChain and LangGraph."""

    class Scenario:
        model_script = ({"tool_calls": [{"id": "c2"}, {"id": "c3"}]},)
        faults = (Fault("engine.kill_after_checkpoint", call_id="c2"),)

    assert killed_siblings(Scenario) == {"c2": {"c3"}}


def test_two_kills_are_ordered_once_for_the_whole_script() -> None:
    """A later turn repeating both ids the other way round must not make each wait for the other."""

    class Scenario:
        model_script = ({"tool_calls": [{"id": "a"}, {"id": "b"}]}, {"tool_calls": [{"id": "b"}, {"id": "a"}]})
        faults = (Fault("tool.kill_before_effect", call_id="a"), Fault("tool.kill_before_effect", call_id="b"))

    assert earlier_kills(Scenario) == {"b": {"a"}}
