"""The calls of one batch handed over one after another in one fixed order (``sibling_order.BatchOrder``): real threads
on a real fixture world; the framework's side (which calls it dispatched together, in what order) is given."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.column_side.fixtures.sibling_order import KILL_FIRST, SIBLINGS_FIRST, BatchOrder, multi_call_turns
from harness.column_side.fixtures.world import FixtureWorld, arm_schedule
from harness.scenarios import Fault

TRANSFER = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
BALANCE = {"account": "ACC-1"}
TOOLS = {"t1": "transfer_funds", "b1": "get_balance", "b2": "get_balance", "x1": "get_balance", "u1": "no_such_tool"}


class Scenario:
    """What ``BatchOrder`` reads of a scenario: the script's calls and the faults."""

    def __init__(self, ids: list[str], faults: tuple[Fault, ...] = ()) -> None:
        self.model_script = ({"tool_calls": [{"id": i, "name": TOOLS[i]} for i in ids]}, {"text": "done"})
        self.faults = faults


class Armed:
    """A fault plan whose kills are all still to come."""

    def armed(self, call_id: str) -> bool:
        return True

    def fail_schedule(self, message: str) -> None:
        raise AssertionError(message)


def batch_of(ids: list[str]) -> Any:
    return lambda: ("step 3", [(i, TOOLS[i]) for i in ids])


def test_only_a_scenario_with_two_calls_in_a_turn_has_a_batch_to_order() -> None:
    assert multi_call_turns(Scenario(["t1", "b1"])) and not multi_call_turns(Scenario(["t1"]))


@pytest.mark.parametrize(
    ("schedule", "expected"),
    [(None, ["t1", "b1", "b2"]), (f"write_held+{SIBLINGS_FIRST}", ["b1", "b2", "t1"]), (KILL_FIRST, ["t1", "b1", "b2"])],
)
def test_the_models_order_but_where_a_kill_order_says_otherwise(schedule: str | None, expected: list[str]) -> None:
    """b1 t1 b2 as the model listed them, t1 with a kill still armed: under siblings_first it goes after its siblings,
    otherwise before them; a call of a tool the framework does not offer is never waited for."""
    scenario = Scenario(["b1", "t1", "b2"], (Fault("tool.kill_after_effect", call_id="t1"),))
    order = BatchOrder(scenario, schedule, Armed(), batch_of([]), {"transfer_funds", "get_balance"})  # type: ignore[arg-type]
    calls = [(i, TOOLS[i]) for i in ("b1", "u1", "t1", "b2")]
    assert order.order(calls) == expected
    unarmed = BatchOrder(Scenario(["b1", "t1", "b2"]), schedule, Armed(), batch_of([]), {"transfer_funds", "get_balance"})  # type: ignore[arg-type]
    assert unarmed.order(calls) == ["b1", "t1", "b2"]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[FixtureWorld]:
    yield FixtureWorld(tmp_path, [], may_kill=False)


def _run_late(world: FixtureWorld, calls: list[tuple[str, dict[str, Any]]], late: str) -> dict[str, Any]:
    """Each call in its own thread, ``late`` started 0.3 s after the others (the race it would lose unordered)."""
    results: dict[str, Any] = {}

    def run(call_id: str, args: dict[str, Any]) -> None:
        if call_id == late:
            time.sleep(0.3)
        results[call_id] = world.call(TOOLS[call_id], call_id, args)

    threads = [threading.Thread(target=run, args=call) for call in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


@pytest.mark.parametrize(("ids", "balance"), [(["t1", "b1"], 97500), (["b1", "t1"], 100000)])
def test_a_balance_read_beside_a_transfer_reads_in_the_models_order(world: FixtureWorld, ids: list[str], balance: int) -> None:
    BatchOrder(Scenario(ids), None, world.faults, batch_of(ids), {"transfer_funds", "get_balance"}).attach(world)
    results = _run_late(world, [("t1", TRANSFER), ("b1", BALANCE)], late=ids[0])
    assert results["b1"]["balance_cents"] == balance


def test_a_call_its_tool_refused_before_the_body_ends_when_the_column_says_so(world: FixtureWorld) -> None:
    """x1 never reaches the fixture world (its arguments failed the tool's validation): b1 goes on once the column says
    the framework is done with x1, not after the order's give-up time."""
    order = BatchOrder(Scenario(["x1", "b1"]), None, world.faults, batch_of(["x1", "b1"]), {"get_balance"})
    order.attach(world)
    threading.Timer(0.2, order.passed, args=("x1",)).start()
    started = time.monotonic()
    world.call("get_balance", "b1", BALANCE)
    assert 0.15 < time.monotonic() - started < 5


@pytest.fixture
def raising_world(tmp_path: Path) -> Iterator[FixtureWorld]:
    """A world whose transfer t1 times out after its effect, with the raise order of its sibling b1 armed."""
    arm_schedule({}, None, {"t1": {"b1"}})
    try:
        world = FixtureWorld(tmp_path, [Fault("tool.timeout_after_effect", call_id="t1")], may_kill=False)
    finally:
        arm_schedule({}, None)
    world.know_dispatch(lambda: {"t1", "b1"})
    yield world


def test_a_raising_call_first_lets_its_sibling_run_before_it_raises(raising_world: FixtureWorld) -> None:
    """t1 runs first (effect), b1 reads after it, then t1 raises (it waits for its dispatched siblings): neither order
    waits for the other."""
    world, events = raising_world, []
    BatchOrder(Scenario(["t1", "b1"]), None, world.faults, batch_of(["t1", "b1"]), {"transfer_funds", "get_balance"}).attach(world)

    def t1() -> None:
        try:
            world.call("transfer_funds", "t1", TRANSFER)
        except TimeoutError:
            events.append("t1 raised")

    def b1() -> None:
        events.append(f"b1 read {world.call('get_balance', 'b1', BALANCE)['balance_cents']}")

    started = time.monotonic()
    threads = [threading.Thread(target=b1), threading.Thread(target=t1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert events == ["b1 read 97500", "t1 raised"] and time.monotonic() - started < 5
