"""The base of every third-party column: what does not depend on the framework, done once.

``FrameworkColumn.perform`` opens the fixture world and the trace, builds the contract glue's
state in ``contract`` mode, asks the framework for a session (``open_session``) and plays the
driver's action on it. The checks that need no framework run here, before the framework sees
anything, and only in ``contract`` mode: the first delivery of an inbound event, the approval
token (bound to session, tool, arguments and expiry, single use) and the reconcile gate.

Decisions reach a session by call id. A framework that takes a turn's decisions as one batch
(``batched_decisions``) gets them when the driver has decided every call of the turn, in the
order the framework listed the calls; until then the decisions are held in the scratch directory
(the human's side of the harness keeps them, as a review screen would) and the step reports the
session as it is.

A framework that pauses, in ``defaults``, on a call the contract would not ask about (a read-only or
reversible call, an always-denied one) gets the contract's decision from the driver, within the same
driver step (``_Step._answer_implicitly``): the question stays a finding, and what the framework does
after it is measured instead of the run stopping there.

A framework provides only what is its own: ``open_session`` (build the agent with the scripted
model and the fixture tools, open the session from disk) and the ``Session`` methods.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import inspect
import re
from abc import abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeAlias, TypeVar, Union

from handwritten.approvals import ApprovalAuthority
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import ToolRegistry
from harness.canonical_io import canonical_line
from harness.column_side.approver import APPROVAL_SECRET
from harness.column_side.driver import trace_path
from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.implicit_decisions import contract_answer
from harness.column_side.protocol import ColumnAdapter, Decision, PendingCall, StepOutcome, StepRequest
from harness.column_side.trace.facts import facts_from_column_trace
from harness.column_side.wire.kill import arm_wire_kills
from harness.modes import MODES
from harness.paths import inside
from harness.records import ScenarioRun, StepFacts
from harness.scenarios import BINDINGS, Scenario

from .glue_blocks import Contract, inbound_event, reconcile_gate, verify_approval
from .held_decisions import HeldDecisions
from .last_run import LastRun

T = TypeVar("T")
MaybeAwaitable: TypeAlias = Union[T, Awaitable[T]]  # noqa: UP007  (a generic alias: mypy wants Union here)


class Trace:
    """The column's own trace: JSON lines tagged with the driver step, line-buffered so a kill loses nothing."""

    def __init__(self, path: Path, driver_step: int) -> None:
        self.driver_step = driver_step
        self._file = open(path, "a", encoding="utf-8", buffering=1)

    def emit(self, event: dict[str, Any]) -> None:
        self._file.write(canonical_line({"driver_step": self.driver_step, **event}))

    def close(self) -> None:
        self._file.close()


@dataclass(frozen=True)
class SessionContext:
    """What a framework needs to open a session for one driver step: the scenario, the scratch directory
    (its files are the session's only memory), the mode, the step, the fixture world, the trace, and in
    ``contract`` mode the glue's state (None in ``defaults``)."""

    scenario: Scenario
    scratch: Path
    mode: str
    request: StepRequest
    world: FixtureWorld
    trace: Trace
    contract: Contract | None


class Session(Protocol):
    """One scenario's session on a framework, opened afresh in each worker. Any method may be a coroutine
    (an asynchronous framework's): the base column runs it on one event loop per driver step."""

    def deliver(self, text: str) -> MaybeAwaitable[StepOutcome]:
        """A user input, as a new run (or turn) of the agent."""

    def decide(self, decisions: list[Decision]) -> MaybeAwaitable[StepOutcome]:
        """The human's decisions, each naming its call: one, or a whole turn's in the framework's order."""

    def resume(self) -> MaybeAwaitable[StepOutcome]:
        """Continue the saved state the way the framework continues it."""

    def reconcile(self, call_id: str, outcome: str) -> MaybeAwaitable[StepOutcome]:
        """Settle an uncertain call (``confirmed`` | ``not_executed``) and continue: contract mode only."""

    def snapshot(self, path: Path) -> MaybeAwaitable[StepOutcome]:
        """Save what the framework would need to continue from here into ``path``."""

    def restore(self, path: Path) -> MaybeAwaitable[StepOutcome]:
        """Make the saved state at ``path`` the session's state again (a retried webhook delivering it)."""

    def outcome(self) -> MaybeAwaitable[StepOutcome]:
        """The session's state now, without running anything."""

    def close(self) -> MaybeAwaitable[None]:
        """Release files and connections."""


class FrameworkColumn(ColumnAdapter):
    """A third-party framework's column. Subclasses set ``name``, ``modes`` (``defaults``, ``contract``),
    ``batched_decisions`` when the framework takes a turn's decisions at once, and implement
    ``open_session``; ``mechanisms`` names where the framework keeps its loop, tool dispatch, message
    assembly, approval and persistence (``module:qualname``, checked in its environment)."""

    modes: ClassVar[tuple[str, ...]] = tuple(m for m in MODES if m != "mcp")
    """``wire``: ``defaults`` with the framework's own OpenAI-compatible model on the runner's scripted server
    (``request.model_url``), every client and framework setting left at its default. ``mcp``, for a column that adds it:
    ``defaults`` with every tool from the runner's MCP server through the framework's own MCP client at its defaults
    (``adapters.mcp_endpoint``)."""
    batched_decisions: ClassVar[bool] = False
    approval_fields: ClassVar[dict[str, str]] = {}
    """The bindings its approval object carries: binding (``call``, ``arguments``, ``session``, ``expiry``, ``single_use``,
    ``authenticity``; ``harness.scenarios.BINDINGS``) -> ``module:qualname`` of the object and the field
    that carries it (``agents.items:ToolApprovalItem raw_item.call_id``). A binding left out is not carried: a misuse
    that breaks it cannot be expressed through the object, so in ``defaults`` it goes in as the plain decision."""
    defaults_never_reaches: ClassVar[dict[str, str]] = {}
    """``"<file>:<function>" -> reason`` for code both modes share that only ``contract`` reaches in these scenarios,
    because ``defaults`` takes another path (``scripts/check_glue_coverage.py`` lists it apart, with the reason)."""

    @abstractmethod
    def open_session(self, context: SessionContext) -> MaybeAwaitable[Session]:
        """Build the agent (scripted model, fixture tools, the glue in contract mode) and open the session."""

    def facts(self, run: ScenarioRun, mode: str) -> list[StepFacts]:
        self.check_mode(mode)
        return facts_from_column_trace(run, dedup_by="glue" if mode == "contract" else "framework")

    def perform(self, scenario: Scenario, scratch: Path, request: StepRequest, mode: str) -> StepOutcome:
        self.check_mode(mode)
        world = FixtureWorld(scratch, list(scenario.faults), may_kill=True)
        trace = Trace(trace_path(scratch), request.index)
        contract = _contract(scenario, scratch, world, trace) if mode == "contract" else None
        if request.model_url is not None:  # wire mode: a model.kill_before_turn fires as the answer to its turn arrives
            arm_wire_kills(world.faults)
        context = SessionContext(scenario, scratch, mode, request, world, trace, contract)
        try:
            with asyncio.Runner() as loop:
                step = _Step(self, context, loop)
                session = step.wait(self.open_session(context))
                try:
                    return step.play(session)
                except Exception as exc:  # the runner decides, from MAPPING.md, whether it is the framework's own
                    trace.emit({"kind": "run_failed", "error": f"{type(exc).__name__}: {_sets_sorted(str(exc))}"})
                    raise
                finally:
                    step.wait(session.close())
        finally:
            if contract is not None:
                # contract glue: start
                contract.idempotency.close()  # type: ignore[attr-defined]
                # contract glue: end
            trace.close()
            world.close()


@dataclass
class _Step:
    """One driver step played on a session: the dispatch and the framework-independent checks."""

    column: FrameworkColumn
    context: SessionContext
    loop: asyncio.Runner

    def wait(self, value: MaybeAwaitable[T]) -> T:
        return self.loop.run(value) if inspect.isawaitable(value) else value  # type: ignore[arg-type]

    def play(self, session: Session) -> StepOutcome:
        outcome = self._play(session)
        if self.context.contract is None and self.context.request.action in _RUNS_THE_FRAMEWORK:
            outcome = self._answer_implicitly(session, outcome)
        outcome = self.last_run.seen(outcome)
        return self.held.visible(outcome) if self.column.batched_decisions else outcome

    @property
    def held(self) -> HeldDecisions:
        return HeldDecisions(self.context.scratch)

    @property
    def last_run(self) -> LastRun:
        return LastRun(self.context.scratch)

    def run(self, call: Callable[[], MaybeAwaitable[StepOutcome]]) -> StepOutcome:
        """A call that runs the framework (a delivery, a decision, a resume, a reconcile), its ending recorded."""
        return self.last_run.run(lambda: self.wait(call()))

    def now(self, session: Session) -> StepOutcome:
        """The session's state as its saved state reads, corrected by how its last run ended (``adapters.last_run``)."""
        return self.last_run.seen(self.wait(session.outcome()))

    def _play(self, session: Session) -> StepOutcome:
        request, contract, trace = self.context.request, self.context.contract, self.context.trace
        match request.action:
            case "run" | "deliver_again":
                assert request.event is not None
                if contract is not None:  # the mode test runs in both modes; only its body is glue
                    # contract glue: start
                    refusal = inbound_event(contract, request.event.event_id, lambda: self.now(session).session_status)
                    if refusal is not None:
                        kind = "duplicate_event" if refusal == "duplicate_event" else "event_refused"
                        trace.emit({"kind": kind, "event_id": request.event.event_id})
                        return self.now(session).refused(refusal)
                    # contract glue: end
                text = request.event.input
                return self.run(lambda: session.deliver(text))
            case "approve" | "misuse_token" | "reject":
                return self._decide(session)
            case "resume":
                return self.run(session.resume)
            case "reconcile":
                now = self.now(session)
                if contract is None:
                    return now.refused(f"not supported by {self.column.name}")
                # contract glue: start
                assert request.call_id is not None and request.outcome is not None
                if (why := reconcile_gate(now.uncertain_call, request.call_id)) is not None:
                    trace.emit({"kind": "reconcile_refused", "call_id": request.call_id, "reason": why})
                    return now.refused(why)
                call_id, outcome = request.call_id, request.outcome
                return self.run(lambda: session.reconcile(call_id, outcome))
                # contract glue: end
            case "snapshot":
                self.held.snapshot(self._snapshot_path())
                self.last_run.snapshot(self._snapshot_path())
                return self.wait(session.snapshot(self._snapshot_path()))
            case "restore":
                self.held.restore(self._snapshot_path())
                self.last_run.restore(self._snapshot_path())
                return self.wait(session.restore(self._snapshot_path()))
            case "direct_call" | "grant":  # never handed over: a framework's tools have no boundary outside its loop
                raise ValueError(f"{request.action} needs a tool boundary {self.column.name} does not have")

    def _decide(self, session: Session) -> StepOutcome:
        request, trace = self.context.request, self.context.trace
        assert request.call_id is not None
        framework_now = self.now(session)
        now = self.held.visible(framework_now) if self.column.batched_decisions else framework_now
        if self.context.contract is not None:
            # contract glue: start
            if (why := self._refusal(now)) is not None:
                trace.emit({"kind": "approval_refused", "call_id": request.call_id, "reason": why})
                return now.refused(why)
            # contract glue: end
        decision = self._expressed(Decision(request.call_id, request.action != "reject", request.reason if request.action == "reject" else None))
        decisions = self._batch(framework_now, decision) if self.column.batched_decisions else [decision]
        if not decisions:  # held until the driver has decided the turn's other calls
            trace.emit({"kind": "decision_held", "call_id": decision.call_id})
            return framework_now  # play() shows it without the held calls, this one included
        waiting = {p.call_id for p in framework_now.pending}
        for d in decisions:  # an approval is a granted fact only for a call the framework was waiting on
            if d.approve:
                trace.emit({"kind": "approval_granted" if d.call_id in waiting else "decision_for_no_waiting_call", "call_id": d.call_id})
        return self.run(lambda: session.decide(decisions))

    def _expressed(self, decision: Decision) -> Decision:
        """A misused approval as the framework's own object can carry it (``approval_fields``), traced either way; in
        ``contract`` the glue has refused every misuse before this, so only ``defaults`` gets here with one."""
        request = self.context.request
        if request.action != "misuse_token":
            return decision
        assert request.misuse is not None
        binding = BINDINGS[request.misuse]
        carried = binding in self.column.approval_fields
        self.context.trace.emit({"kind": "approval_object", "call_id": decision.call_id, "misuse": request.misuse, "binding": binding,
                                 "carried": carried, "made_for": request.made_for})
        return dataclasses.replace(decision, misuse=request.misuse, made_for=request.made_for) if carried else decision

    # contract glue: start
    def _refusal(self, now: StepOutcome) -> str | None:
        """Why the contract refuses this decision before the framework sees it: the call is not pending, or the
        token does not approve it (other arguments or session, expired, forged, used before)."""
        request, contract = self.context.request, self.context.contract
        assert contract is not None
        call = next((p for p in now.pending if p.call_id == request.call_id), None)
        if call is None:
            return "not_pending"
        if request.action == "reject":
            return None
        authority = ApprovalAuthority(APPROVAL_SECRET, clock=lambda: request.now, new_token_id=_no_issuing)
        return verify_approval(contract, authority, call.call_id, call.tool, call.args, request.token or "")
    # contract glue: end

    def _batch(self, now: StepOutcome, decision: Decision) -> list[Decision]:
        """The turn's decisions, in the framework's order, once every pending call has one; [] while some are
        missing. A decision on a call that is not pending goes to the framework alone, as the driver gave it;
        in ``defaults`` a second decision on a held call replaces the first (the review screen's, not yet sent)."""
        pending = [p.call_id for p in now.pending]
        if decision.call_id not in pending or len(pending) == 1:
            return [decision]
        held = {**self.held.of_turn(pending), decision.call_id: decision}
        if set(held) != set(pending):
            self.held.hold(pending, held)
            return []
        self.held.clear()
        return [held[call_id] for call_id in pending]

    def _answer_implicitly(self, session: Session, outcome: StepOutcome) -> StepOutcome:
        """``defaults``: answer every pause on calls the contract would not ask about with the contract's decision.

        A read-only or reversible call is approved and an always-denied one rejected with the engine's refusal
        (``harness.column_side.implicit_decisions``); a high-risk call is the human's and stays pending. Each
        decision is traced as ``implicit_decision`` at a sub-step of this driver step (1, 2, ... in the order
        given; ``pause`` counts the pauses answered) and reaches the framework as the driver's own would: one
        call at a time, or held until the turn is whole for a framework that takes a turn's decisions at once.
        The loop goes on while the run pauses again on such calls, for at most the scenario's ``max_steps``
        pauses in one driver step (each pause follows a model turn, and the contract bounds those). A step that
        did not end paused (the framework refused it, say: nothing ran) is left as it is."""
        sub_step = 0
        for pause in range(1, self.context.scenario.max_steps + 1):
            answers = self._contract_answers(outcome)
            if outcome.status != "awaiting_approval" or not answers:
                break
            for decision in answers:  # the pause's calls, in the framework's order
                if decision.call_id not in {p.call_id for p in self._undecided(outcome)}:
                    continue  # answered along with another call, or no longer asking
                sub_step += 1
                call = next(p for p in outcome.pending if p.call_id == decision.call_id)
                self.context.trace.emit({
                    "kind": "implicit_decision", "sub_step": sub_step, "pause": pause, "call_id": call.call_id, "tool": call.tool, "args": call.args,
                    "decision": "approve" if decision.approve else "reject", "pending": [p.call_id for p in outcome.pending],
                })
                batch = self._batch(outcome, decision) if self.column.batched_decisions else [decision]
                if batch:  # else held with the turn's other decisions until the human gives theirs
                    outcome = self.run(functools.partial(session.decide, batch))
        return outcome

    def _undecided(self, outcome: StepOutcome) -> tuple[PendingCall, ...]:
        """The calls waiting on a decision: the framework's pending ones less those held for its batch."""
        return self.held.visible(outcome).pending if self.column.batched_decisions else outcome.pending

    def _contract_answers(self, outcome: StepOutcome) -> list[Decision]:
        """The contract's decisions on the undecided calls it would not have asked about, in the framework's order."""
        answers = ((call, contract_answer(call.tool)) for call in self._undecided(outcome))
        return [Decision(call.call_id, *answer) for call, answer in answers if answer is not None]

    def _snapshot_path(self) -> Path:
        snapshots = self.context.scratch / "snapshots"
        snapshots.mkdir(exist_ok=True)
        return inside(snapshots, f"{self.context.request.name}.json", what="saved state name")


_RUNS_THE_FRAMEWORK = ("run", "deliver_again", "approve", "misuse_token", "reject", "resume")
"""The driver actions after which the framework may have paused anew (a snapshot or a restore only reports its state)."""


_SET_OF_STRINGS = re.compile(r"\{'[^'{}]*'(?:, '[^'{}]*')+\}")


def _sets_sorted(message: str) -> str:
    """A framework's message with each set of strings it prints in sorted order: a set has no order, and Python's
    differs from run to run (hash randomization; the column's interpreter runs with ``-I``, so no hash seed reaches it)."""
    return _SET_OF_STRINGS.sub(lambda m: "{" + ", ".join(sorted(m.group(0)[1:-1].split(", "))) + "}", message)


# contract glue: start
def _contract(scenario: Scenario, scratch: Path, world: FixtureWorld, trace: Trace) -> Contract:
    return Contract(
        session_id=scenario.session_id,
        registry=ToolRegistry(world.tool_specs(list(scenario.tools))),
        idempotency=SqliteIdempotencyStore(str(scratch / "contract.sqlite")),
        intents=scratch / "intents.jsonl",
        emit=trace.emit,
        fire_after_intent=lambda call_id: world.faults.fire("engine.kill_after_checkpoint", call_id=call_id),
        handover=world.handover,
        max_steps=scenario.max_steps,
        user=scenario.user,
    )


def _no_issuing() -> str:
    raise RuntimeError("the glue verifies approval tokens; only the human approver issues them")
# contract glue: end
