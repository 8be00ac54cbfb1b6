"""The fixture world of one run: the fixture tools (``harness.fixture_tools``) over the ledger and the faults.

``FixtureWorld.enter`` records that somebody called the tool function; ``FixtureWorld.execute``
is the body with the side effect, wrapped in the fault points every column meets at the same moment.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from handwritten.tools import ToolContext, ToolSpec
from harness.column_side.faults import FAULTS_FILE, FaultPlan, open_faults_db
from harness.column_side.sibling_order import ORDERS, SiblingGate
from harness.fixture_tools import FIXTURE_TOOLS
from harness.ledger import EFFECT, EXECUTOR_ENTRY, TOOL_ENTRY, Ledger, worker_ledger
from harness.scenarios import Fault

_schedule: tuple[dict[str, set[str]], str | None, dict[str, set[str]], dict[str, set[str]]] = ({}, None, {}, {})


def arm_schedule(
    siblings: dict[str, set[str]], schedule: str | None, raising: dict[str, set[str]] | None = None, earlier: dict[str, set[str]] | None = None
) -> None:
    """Called by the supervisor in a fresh worker: the killed calls' siblings, the sub-case's schedule
    (``<order>+<order>`` parts), the raising calls' siblings and the kills before each kill in its turn, so a world built
    in this process forces the orders they name (``harness.column_side.sibling_order``)."""
    global _schedule
    _schedule = (siblings, schedule, raising or {}, earlier or {})


class FixtureWorld:
    """One run's world: the ledger (the runner's, through its channel, in a supervised worker) and the
    fault plan, whose firings are committed in ``<scratch>/faults.sqlite``."""

    def __init__(self, scratch: Path, faults: list[Fault], may_kill: bool, ledger: Ledger | None = None) -> None:
        self.ledger = ledger if ledger is not None else worker_ledger(scratch)
        self.path = getattr(self.ledger, "path", None)  # a local ledger's file (unit tests); None on the channel
        self._conn: sqlite3.Connection = open_faults_db(str(scratch / FAULTS_FILE))
        self.faults = FaultPlan(faults, self._conn, may_kill)
        siblings, schedule, raising, earlier = _schedule
        order = next((part for part in (schedule or "").split("+") if part in ORDERS), None)
        self._gate = SiblingGate(order, siblings, self.faults, raising, earlier) if order or raising or earlier else None

    def close(self) -> None:
        self._conn.close()
        self.ledger.close()

    def know_dispatch(self, dispatched: Callable[[], set[str]]) -> None:
        """A column that can tell which calls its framework dispatched together (``harness.column_side.sibling_order``)."""
        if self._gate is not None:
            self._gate.dispatched = dispatched

    @contextmanager
    def handover(self, call_id: str) -> Iterator[None]:
        """The framework hands a call over (contract glue wraps its work on a call in this): the sibling order
        of a schedule (``harness.column_side.sibling_order``) holds a call back here or waits for it here."""
        self.starting(call_id)
        try:
            yield
        finally:
            self.finished(call_id)

    def starting(self, call_id: str) -> None:
        """The start of a hand-over, for glue that cannot use ``handover`` (an async wrapper runs it in a thread)."""
        if self._gate is not None:
            self._gate.starting(call_id)

    def finished(self, call_id: str) -> None:
        """The end of a hand-over started with ``starting``."""
        if self._gate is not None:
            self._gate.finished(call_id)

    def enter(self, tool: str, call_id: str, raw_args: Any) -> None:
        """Somebody called the tool function (before any validation of theirs)."""
        self.starting(call_id)
        self.ledger.record(TOOL_ENTRY, call_id, tool, raw_args)

    def execute(self, tool: str, call_id: str, args: Any) -> Any:
        """The body with the side effect, between its fault points; returns the tool's output."""
        spec = FIXTURE_TOOLS[tool]
        try:
            self.ledger.record(EXECUTOR_ENTRY, call_id, tool, args)
            self.faults.fire("tool.raise_before_effect", call_id=call_id)
            self.faults.fire("tool.kill_before_effect", call_id=call_id)
            output, effect = spec.body(self, args, call_id)
            if effect is not None:
                self.ledger.record(EFFECT, call_id, tool, effect)  # its own commit: a kill after it is a real gap
                self.faults.fire("tool.kill_after_effect", call_id=call_id)
                self.faults.fire("tool.timeout_after_effect", call_id=call_id)
            return output
        finally:
            self.finished(call_id)

    def call(self, tool: str, call_id: str, args: Any) -> Any:
        """Enter and execute: what a plain tool function does."""
        self.enter(tool, call_id, args)
        return self.execute(tool, call_id, args)

    def tool_specs(self, names: list[str]) -> list[ToolSpec]:
        """The engine's view of the named fixture tools: executors that call into this world."""

        def executor(name: str) -> Callable[[Any, ToolContext], Any]:
            return lambda args, ctx: self.call(name, ctx.call_id, args)

        return [ToolSpec(t.name, t.description, t.schema, t.risk, executor(t.name), t.acts_for) for t in (FIXTURE_TOOLS[n] for n in names)]
