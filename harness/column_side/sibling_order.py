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
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from harness.column_side.faults import FaultPlan

SIBLINGS_FIRST, KILL_FIRST = "siblings_first", "kill_first"
ORDERS = (SIBLINGS_FIRST, KILL_FIRST)
TOOL_KILLS = ("tool.kill_before_effect", "tool.kill_after_effect", "engine.kill_after_checkpoint")
"""Kills inside one call (the contract's intent checkpoint is the call's too: contract glue fires it in the call's hand-over)."""
TOOL_RAISES = ("tool.raise_before_effect", "tool.timeout_after_effect")
WAIT_S = 10.0  # generous: a busy machine must not turn one ordering into the other


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
    that fails is not the end of the call. A wait for a call that never started gives up after ``WAIT_S``
    (it was not dispatched with the others: nothing to order); a wait for one that started and did not get
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
        deadline = time.monotonic() + WAIT_S
        with self._changed:
            while not calls <= reached and time.monotonic() < deadline:
                self._changed.wait(deadline - time.monotonic())
            late = sorted((calls - reached) & self._started)
        if late:
            self._faults.fail_schedule(f"the {self._order or 'siblings-before-the-raise'} order: {', '.join(late)} started but did not get there in {WAIT_S} s")
