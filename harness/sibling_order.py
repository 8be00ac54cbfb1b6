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
stops it for reconciliation, say), waits until its siblings have started: a framework that
cancels the calls not yet started when one call of the batch ends early (``Executor.map``
in ``ToolNode``) would otherwise run them or not by chance.

A sibling that is not running concurrently with the killed call (it is not dispatched in
this step, or the framework runs calls one after another) is waited for at most
``WAIT_S``; the schedule then changes nothing, and the outcome is the same in every run.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from .faults import FaultPlan

SIBLINGS_FIRST, KILL_FIRST = "siblings_first", "kill_first"
ORDERS = (SIBLINGS_FIRST, KILL_FIRST)
TOOL_KILLS = ("tool.kill_before_effect", "tool.kill_after_effect")
WAIT_S = 10.0  # generous: a busy machine must not turn one ordering into the other


def killed_siblings(scenario: Any) -> dict[str, set[str]]:
    """Killed call id -> the other calls of its scripted turn (only kills inside a tool that has siblings)."""
    out: dict[str, set[str]] = {}
    for fault in scenario.faults:
        if fault.point not in TOOL_KILLS:
            continue
        for turn in scenario.model_script:
            ids = {c["id"] for c in turn.get("tool_calls", ())}
            if fault.call_id in ids and len(ids) > 1:
                out.setdefault(fault.call_id, set()).update(ids - {fault.call_id})
    return out


def sibling_orders(scenario: Any) -> tuple[str, ...]:
    """The orderings a column whose framework runs a turn's calls concurrently declares for this scenario."""
    return ORDERS if killed_siblings(scenario) else ()


class SiblingGate:
    """Holds siblings back (``kill_first``) or holds the kill back (``siblings_first``), in one worker process."""

    def __init__(self, order: str, siblings: dict[str, set[str]], faults: FaultPlan) -> None:
        if order not in ORDERS:
            raise ValueError(f"unknown sibling order {order!r}; known: {ORDERS}")
        self._order = order
        self._siblings = siblings
        self._faults = faults
        self._changed = threading.Condition()
        self._finished: set[str] = set()
        self._started: set[str] = set()
        faults.on_kill(self._before_kill)

    def starting(self, call_id: str) -> None:
        """A call is handed over: under ``kill_first`` a sibling of a killed call still to come waits (once)."""
        if call_id in self._started:
            return
        with self._changed:
            self._started.add(call_id)
            self._changed.notify_all()
        if self._order == KILL_FIRST:  # the killed call's kill ends this process; its end without a kill releases us
            killers = [k for k, s in self._siblings.items() if call_id in s and self._faults.armed(k)]
            self._wait_until(lambda: all(k in self._finished for k in killers))

    def finished(self, call_id: str) -> None:
        """A call is done (its tool body or the glue around it returned or raised); the killed call first waits
        until its siblings have started, so no framework can cancel one that has not."""
        if call_id in self._siblings and call_id not in self._finished:
            self._wait_until(lambda: self._siblings[call_id] <= self._started)
        with self._changed:
            self._finished.add(call_id)
            self._changed.notify_all()

    def _wait_until(self, condition: Callable[[], bool]) -> None:
        deadline = time.monotonic() + WAIT_S
        with self._changed:
            while not condition() and time.monotonic() < deadline:
                self._changed.wait(deadline - time.monotonic())

    def _before_kill(self, call_id: str | None) -> None:
        """Under ``siblings_first`` the killed call's siblings run to their end before the process dies."""
        if self._order != SIBLINGS_FIRST or call_id not in self._siblings:
            return
        self._wait_until(lambda: self._siblings[call_id] <= self._finished)
