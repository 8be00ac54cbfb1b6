"""A kill inside one call of a turn whose calls a framework runs concurrently, pinned by schedule.

When a framework runs a turn's tool calls at the same time (LangGraph's ``ToolNode`` in
threads, LangChain's one task per call), a kill inside one call (the *killed* call) races
its siblings, the other calls of the same scripted turn: a sibling may have finished, be
half-way, or not have started when the process dies, and a plain run flaps between those.
A column whose framework does this declares the two orderings below as schedules
(``harness.columns``), and the fixture world forces the one a sub-case names:

- ``siblings_first``: every sibling that enters the tool runs to its end before the kill
  (the kill waits for them);
- ``kill_first``: no sibling starts before the kill: each waits where the framework hands
  it over (the contract glue's tool wrapper, else the tool's entry, before its entry is
  counted) and dies with the process.

Under both orders the killed call, whenever it ends without being killed (a resume that
stops it for reconciliation, say), waits until its siblings have finished: a framework that
cancels the rest of a batch when one call ends early (``Executor.map`` in ``ToolNode``, the
OpenAI Agents SDK's tasks) would otherwise run them or not by chance.

A call that a fault makes *raise* (``tool.raise_before_effect``, ``tool.timeout_after_effect``) races its
siblings the same way where the exception ends the batch: ``Executor.map`` in ``ToolNode`` cancels the calls
that have not started yet, so a sibling runs or not by chance. There is one order to force here (the raising
call cannot be held back from a sibling that the framework has already started): under every schedule, none
included, the raising call waits until its dispatched siblings have finished, then raises. Only a column that
can tell which calls its framework dispatched together (``FixtureWorld.know_dispatch``) is pinned so; in any
other a difference between two runs shows as an undeclared race.

Two kills in one turn race each other the same way (which call dies first decides whether the other entered its
tool). Under every schedule a call with a kill waits at its hand-over while a call before it in the turn, with a kill
still armed, may still be coming: the earlier kill fires first, as where a framework runs the calls one after another.

A sibling that is not running concurrently with the killed call (it is not dispatched in
this step, or the framework runs calls one after another) is waited for at most
``WAIT_S``; the schedule then changes nothing, and the outcome is the same in every run.
A call that did start and still did not get where the order needs it is a failure to force
the order, never silently the other ordering.

**One batch, one order** (``BatchOrder``). Without any fault the calls of a batch still race each other: a read-only
balance query beside an approved transfer reads the balance before or after the transfer by chance. A column whose
framework runs a batch's calls concurrently and can say which calls it dispatched together, and in what order, hands
every call of a batch over one after another: a call waits at its hand-over (where ``kill_first`` holds a sibling:
the contract glue's tool wrapper, else the tool's entry, before its entry is counted) until every call before it in
the batch's order has ended. The order is the model's (the order of the calls in the model's turn), except where
the orders above say otherwise: a call with a kill still armed goes after its siblings under ``siblings_first`` and
before them otherwise, and two such calls go in the order ``earlier_kills`` gives them. A raising call is ended for
this order when its tool has returned or raised, before it waits for its siblings to raise, so the two orders never
wait for each other. Only the calls whose tool the framework offers are waited for (a call of an unknown tool is
answered without being handed over), and a call whose tool rejected its arguments before the body ran ends when the
column says so (``BatchOrder.passed``). The framework still starts every call at once, in its own threads or tasks:
only the moment each call's body runs is pinned.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Any

from harness.column_side.faults import FaultPlan

SIBLINGS_FIRST, KILL_FIRST = "siblings_first", "kill_first"
ORDERS = (SIBLINGS_FIRST, KILL_FIRST)
TOOL_KILLS = ("tool.kill_before_effect", "tool.kill_after_effect", "engine.kill_after_checkpoint")
"""Kills inside one call (the contract's intent checkpoint is the call's too: contract glue fires it in the call's hand-over)."""
TOOL_RAISES = ("tool.raise_before_effect", "tool.timeout_after_effect")
WAIT_S = 10.0  # generous: a busy machine must not turn one ordering into the other
START_S = 2.0
"""How long a wait gives a call that has not started yet, where the column cannot say which calls its framework
dispatched: a call dispatched with the others starts within milliseconds (a thread or a task of the same batch), and
one that never starts is one the framework held back (a call waiting for approval runs in a later batch), which a
wait of ``WAIT_S`` would only pay for in every step. A call that started gets ``WAIT_S`` to get there."""


def killed_siblings(scenario: Any) -> dict[str, set[str]]:
    """Killed call id -> the other calls of its scripted turn (only kills inside a tool that has siblings).

    A call with a kill of its own is nobody's sibling: which of two kills in one turn fires first is ordered by
    ``earlier_kills`` instead."""
    return _siblings(scenario, TOOL_KILLS)


def raising_siblings(scenario: Any) -> dict[str, set[str]]:
    """Id of a call a fault makes raise -> the other calls of its scripted turn (none with a fault of the same kind)."""
    return _siblings(scenario, TOOL_RAISES)


def _siblings(scenario: Any, points: tuple[str, ...]) -> dict[str, set[str]]:
    faulted = {f.call_id for f in scenario.faults if f.point in points}
    out: dict[str, set[str]] = {}
    for call_id in sorted(faulted):
        for turn in scenario.model_script:
            ids = {c["id"] for c in turn.get("tool_calls", ())}
            if call_id in ids and ids - faulted:
                out.setdefault(call_id, set()).update(ids - faulted)
    return out


def earlier_kills(scenario: Any) -> dict[str, set[str]]:
    """Id of a call with a kill -> the calls with a kill before it in its scripted turn (see the module's docstring)."""
    killers = {f.call_id for f in scenario.faults if f.point in TOOL_KILLS}
    calls = [c["id"] for turn in scenario.model_script for c in turn.get("tool_calls", ()) if c["id"] in killers]
    rank = {call_id: n for n, call_id in enumerate(dict.fromkeys(calls))}  # one order for the whole script: a turn that
    out: dict[str, set[str]] = {}  # repeats two ids the other way round must not make each wait for the other
    for turn in scenario.model_script:
        ids = {c["id"] for c in turn.get("tool_calls", ()) if c["id"] in killers}
        for call_id in ids:
            if before := {k for k in ids if rank[k] < rank[call_id]}:
                out.setdefault(call_id, set()).update(before)
    return out


def sibling_orders(scenario: Any) -> tuple[str, ...]:
    """The orderings a column whose framework runs a turn's calls concurrently declares for this scenario."""
    return ORDERS if killed_siblings(scenario) else ()


class SiblingGate:
    """Holds siblings back (``kill_first``) or holds the kill back (``siblings_first``), in one worker process.

    A call *starts* when the framework hands it over (``starting``) and *finishes* when the outermost
    hand-over ends (``finished``): contract glue wraps its attempts in one hand-over, so a first attempt
    that fails is not the end of the call. A wait for calls none of which started gives up after ``START_S``
    (they were not dispatched with the others: nothing to order); a wait for one that started and did not get
    there in time could not force the order: ``FaultPlan.fail_schedule`` ends the worker so the step is
    an error, never a sub-case that measured the other ordering.
    """

    def __init__(
        self, order: str | None, siblings: dict[str, set[str]], faults: FaultPlan, raising: dict[str, set[str]] | None = None,
        earlier: dict[str, set[str]] | None = None,
    ) -> None:
        if order is not None and order not in ORDERS:
            raise ValueError(f"unknown sibling order {order!r}; known: {ORDERS}")
        self._order = order
        self._siblings = siblings if order is not None else {}  # without an order a kill's siblings are not ordered
        self._raising = raising or {}
        self._earlier = earlier or {}
        self._faults = faults
        self._changed = threading.Condition()
        self._started: set[str] = set()
        self._finished: set[str] = set()
        self._released: set[str] = set()  # killed calls that ended without their kill: their siblings may go on
        self._depth: dict[str, int] = {}
        self.dispatched: Callable[[], set[str]] | None = None
        """The column's account of which calls its framework dispatched with the running one (``None``: every
        sibling may be coming, waits for one that is not end after ``WAIT_S``)."""
        faults.on_kill(self._before_kill)

    def starting(self, call_id: str) -> None:
        """A call is handed over (nested hand-overs of one call count once): under ``kill_first`` a sibling of
        a killed call still to come waits until that call has finished, which its kill never lets happen."""
        with self._changed:
            self._depth[call_id] = self._depth.get(call_id, 0) + 1
            if call_id in self._started:
                return
            self._started.add(call_id)
            self._changed.notify_all()
        if self._order == KILL_FIRST:
            killers = {k for k, s in self._siblings.items() if call_id in s and self._faults.armed(k)}
            self._wait_for(killers, self._released)
        before = {k for k in self._earlier.get(call_id, ()) if self._faults.armed(k)}
        if before:  # two kills in one turn: the earlier call's kill fires first
            self._wait_for(before, self._released)

    def finished(self, call_id: str) -> None:
        """The outermost hand-over of a call ended (returned or raised). The killed call first waits until its
        dispatched siblings have finished, so a framework that cancels the rest of a batch when one call ends
        early (``Executor.map``, an ``asyncio`` task group) cannot cut one short by chance."""
        with self._changed:
            self._depth[call_id] -= 1
            if self._depth[call_id] > 0 or call_id in self._finished:
                return
        if call_id in self._siblings:
            with self._changed:  # its kill did not fire (a read-only call has no effect to die after, say): under
                self._released.add(call_id)  # kill_first its siblings wait for this, and this call waits for them
                self._changed.notify_all()
            self._wait_for(self._siblings[call_id], self._finished)
        elif call_id in self._raising and self.dispatched is not None:  # see the module's docstring: a raise's one order
            # not for a killed sibling: it waits for this call before it ends (above), so each would wait for the other
            self._wait_for(self._raising[call_id] - set(self._siblings), self._finished)
        with self._changed:
            self._finished.add(call_id)
            self._released.add(call_id)
            self._changed.notify_all()

    def _before_kill(self, call_id: str | None) -> None:
        """Under ``siblings_first`` the killed call's siblings run to their end before the process dies."""
        if self._order == SIBLINGS_FIRST and call_id in self._siblings:
            self._wait_for(self._siblings[call_id], self._finished)

    def _wait_for(self, calls: set[str], reached: set[str]) -> None:
        """Wait until every call of ``calls`` (those dispatched, when the column can tell) is in ``reached``;
        give up on the ones that never started."""
        if self.dispatched is not None:
            calls = calls & self.dispatched()
        began = time.monotonic()
        with self._changed:
            while not calls <= reached:
                # calls known to be dispatched, or one that started, get WAIT_S; none started and none known: START_S
                limit = began + (WAIT_S if self.dispatched is not None or calls & self._started else START_S)
                if time.monotonic() >= limit:
                    break
                self._changed.wait(limit - time.monotonic())
            late = sorted((calls - reached) & self._started)
        if late:
            self._faults.fail_schedule(f"the {self._order or 'siblings-before-the-raise'} order: {', '.join(late)} started but did not get there in {WAIT_S} s")


Batch = tuple[Hashable, list[tuple[str, str]]]
"""What a column says about the running call's batch: a key naming the batch (one per super-step, say) and the
batch's calls as ``(call id, tool name)`` pairs, in the model's order, leaving out the calls that have already
ended or will not run now (their results were saved before)."""


def multi_call_turns(scenario: Any) -> bool:
    """Whether any scripted turn asks for two calls or more: the only scenarios a batch order can change."""
    return any(len(turn.get("tool_calls", ())) > 1 for turn in scenario.model_script)


class BatchOrder:
    """The calls of one batch handed over one after another, in one fixed order (the module docstring's last part).

    ``batch`` is the column's account of the running call's batch (``Batch``), called from the call's own thread at
    its hand-over; ``offered`` the tool names the framework offers. ``attach`` hooks the order into a fixture world's
    hand-over (``FixtureWorld.starting`` and ``finished``, which the tool's entry and the contract glue's ``handover``
    call), in front of the world's own ``SiblingGate``: a call waits here first, and is ended here before the gate's
    waits at its end."""

    def __init__(self, scenario: Any, schedule: str | None, faults: FaultPlan, batch: Callable[[], Batch], offered: set[str]) -> None:
        parts = (schedule or "").split("+")
        self._kill_first = SIBLINGS_FIRST not in parts  # siblings_first puts armed kills last; otherwise they go first
        self._faults = faults
        self._batch = batch
        self._offered = offered
        killers = {f.call_id for f in scenario.faults if f.point in TOOL_KILLS}
        calls = [c["id"] for turn in scenario.model_script for c in turn.get("tool_calls", ())]
        self._killer_rank = {cid: n for n, cid in enumerate(dict.fromkeys(c for c in calls if c in killers))}  # earlier_kills' rank
        self._changed = threading.Condition()
        self._key: dict[str, Hashable] = {}  # call id -> the batch it was last handed over in
        self._depth: dict[tuple[Hashable, str], int] = {}
        self._started: set[tuple[Hashable, str]] = set()
        self._ended: set[tuple[Hashable, str]] = set()

    def attach(self, world: Any) -> None:
        """Put this order in front of ``world``'s hand-over (``world.handover``, ``enter`` and ``execute`` call these two)."""
        starting, finished = world.starting, world.finished

        def start(call_id: str) -> None:
            self.starting(call_id)
            starting(call_id)

        def finish(call_id: str) -> None:
            self.finished(call_id)
            finished(call_id)

        world.starting, world.finished = start, finish

    def order(self, calls: list[tuple[str, str]]) -> list[str]:
        """The batch's calls in the order they run: the model's, a call with an armed kill moved last (``siblings_first``)
        or first (otherwise), such calls among themselves in ``earlier_kills``' order; calls of tools not offered left out."""
        ids = list(dict.fromkeys(cid for cid, name in calls if name in self._offered))
        armed = sorted((c for c in ids if c in self._killer_rank and self._faults.armed(c)), key=self._killer_rank.__getitem__)
        rest = [c for c in ids if c not in armed]
        return armed + rest if self._kill_first else rest + armed

    def starting(self, call_id: str) -> None:
        """A call is handed over (nested hand-overs of one call count once): it waits until the calls before it ended."""
        key, calls = self._batch()
        me = (key, call_id)
        with self._changed:
            self._key[call_id] = key
            self._depth[me] = self._depth.get(me, 0) + 1
            if self._depth[me] > 1 or me in self._started:
                return
            self._started.add(me)
            self._changed.notify_all()
        order = self.order(calls)
        before = {(key, c) for c in order[: order.index(call_id)]} if call_id in order else set()
        deadline = time.monotonic() + WAIT_S
        with self._changed:
            while not before <= self._ended and time.monotonic() < deadline:
                self._changed.wait(deadline - time.monotonic())
            late = sorted(c for k, c in (before - self._ended) & self._started)
        if late:
            self._faults.fail_schedule(f"the batch order: {', '.join(late)} before {call_id} started but did not end in {WAIT_S} s")

    def finished(self, call_id: str) -> None:
        """The outermost hand-over of a call ended (returned or raised): the next call of its batch may go."""
        with self._changed:
            me = (self._key[call_id], call_id)
            self._depth[me] -= 1
            if self._depth[me] == 0:
                self._ended.add(me)
                self._changed.notify_all()

    def passed(self, call_id: str) -> None:
        """The framework is done with a call of the running batch (its tool returned or raised): a call that was never
        handed over (its arguments failed the tool's validation before the body) has ended too."""
        me = (self._batch()[0], call_id)
        with self._changed:
            if me not in self._started:
                self._ended.add(me)
                self._changed.notify_all()
