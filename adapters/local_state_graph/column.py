"""The ``local_state_graph`` column: the contract graph over the shared fixture world, one driver step per worker.

Every worker builds everything afresh from the files in the scratch directory (graph
checkpoints and idempotency records in ``state_graph.sqlite``, fault firings in
``faults.sqlite``; the ledger is the runner's), so a resume after a kill knows only what was on disk.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from handwritten.approvals import ApprovalAuthority
from handwritten.events import Event
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import ToolRegistry
from harness.canonical_io import canonical_line
from harness.column_side.approver import APPROVAL_SECRET
from harness.column_side.driver import trace_path
from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.protocol import ColumnAdapter, StepOutcome, StepRequest
from harness.column_side.scripted_model import ScriptedModel
from harness.column_side.trace.facts import facts_from_engine_events
from harness.paths import inside
from harness.records import ScenarioRun, StepFacts
from harness.scenarios import Scenario

from .checkpointer import Checkpoint, MemorySaver, SqliteSaver
from .contract import Services, contract_graph
from .session import ContractSession, outcome_of


@dataclass(frozen=True)
class SuperStep:
    """The graph ran ``node`` (its ``step``-th super-step in the thread) and checkpointed; ``next`` runs next.

    The graph's own trace event, next to the contract's events (``handwritten.events``); it is
    not registered among those, which are the engine's vocabulary."""

    kind: ClassVar[str] = "super_step"
    step: int
    node: str
    next: str
    interrupted: bool

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **dataclasses.asdict(self)}


class LocalStateGraphColumn(ColumnAdapter):
    """The contract as a small graph on the dependency-free runtime: its own loop, interrupts and checkpoints."""

    name = "local_state_graph"
    modes = ("contract",)

    def perform(self, scenario: Scenario, scratch: Path, request: StepRequest, mode: str) -> StepOutcome:
        """Run one driver step in this (worker) process."""
        self.check_mode(mode)
        return _perform(scenario, scratch, request)

    def facts(self, run: ScenarioRun, mode: str) -> list[StepFacts]:
        """What the graph's own trace (in the engine's event vocabulary) says happened in each step."""
        self.check_mode(mode)
        return facts_from_engine_events(run)

    def detail(self, run: ScenarioRun, mode: str) -> dict[str, Any]:
        """The graph's shape and the super-steps this scenario took across all its driver steps (never compared)."""
        self.check_mode(mode)
        graph = contract_graph().compile(MemorySaver())
        shape = graph.describe()
        super_steps = sum(1 for step in run.steps for e in step.trace if e["kind"] == SuperStep.kind)
        return {"graph": {**shape, "super_steps": super_steps, "mermaid": graph.mermaid()}}


def _perform(scenario: Scenario, scratch: Path, request: StepRequest) -> StepOutcome:
    index, now = request.index, request.now
    world = FixtureWorld(scratch, list(scenario.faults), may_kill=True)
    database = str(scratch / "state_graph.sqlite")
    with open(trace_path(scratch), "a", encoding="utf-8", buffering=1) as trace:  # line-buffered: survives a kill

        def emit(event: Event | SuperStep) -> None:
            trace.write(canonical_line({"driver_step": index, **event.to_json()}))

        def after_step(node: str, checkpoint: Checkpoint) -> None:
            emit(SuperStep(checkpoint.step, node, checkpoint.next, checkpoint.interrupt is not None))
            if node == "intent":  # the intent's checkpoint is on disk and its executor has not run
                world.faults.fire("engine.kill_after_checkpoint", call_id=checkpoint.values["pending_intent"]["call_id"])

        services = Services(
            model=ScriptedModel.of(scenario, scratch, world.faults),
            registry=ToolRegistry(world.tool_specs(list(scenario.tools))),
            approvals=ApprovalAuthority(APPROVAL_SECRET, clock=lambda: now, new_token_id=_no_issuing),
            idempotency=SqliteIdempotencyStore(database),
            emit=emit,
            max_steps=scenario.max_steps,
            system_prompt=scenario.system_prompt,
            user=scenario.user,
        )
        graph = contract_graph().compile(SavesObserved(database, world.faults.saved), after_step=after_step, recursion_limit=step_limit(scenario))
        return _act(ContractSession(graph, scenario.session_id, services), request, scratch / "snapshots")


class SavesObserved(SqliteSaver):
    """The runtime's SQLite saver, each ``put`` then ``after_save`` (the fault plan's state-save hook): harness code."""

    def __init__(self, path: str, after_save: Callable[[], None]) -> None:
        super().__init__(path)
        self._after_save = after_save

    def put(self, checkpoint: Checkpoint) -> None:
        super().put(checkpoint)
        self._after_save()


def step_limit(scenario: Scenario) -> int:
    """The super-steps one graph call may take: the scenario's ``max_steps`` model turns, not the runtime's fixed
    default, so a long scenario ends on its own bound. A call takes ``accept``, then per model turn ``model``,
    ``validate``, ``policy`` and ``close_turn`` with, per tool call, at most ``approval``, ``intent``, ``execute`` and
    ``reconcile`` (a human's answer is an interrupt, which ends the call), and the last ``model`` turn that
    finishes the run or meets the bound."""
    calls = max((len(turn.get("tool_calls", ())) for turn in scenario.model_script), default=0)
    return 1 + scenario.max_steps * (4 + 4 * max(calls, 1)) + 1


def _act(session: ContractSession, request: StepRequest, snapshots: Path) -> StepOutcome:
    """One driver action on the session."""
    match request.action:
        case "run" | "deliver_again":
            assert request.event is not None
            return session.deliver(request.event.event_id, request.event.input)
        case "approve" | "misuse_token":
            return session.approve(str(request.call_id), request.token or "")
        case "reject":
            return session.reject(str(request.call_id), request.reason)
        case "resume":
            return session.resume()
        case "reconcile":
            return session.reconcile(str(request.call_id), request.outcome or "")
        case "snapshot":  # the graph keeps every checkpoint: a snapshot is the id of the latest
            state = session.state()
            snapshots.mkdir(exist_ok=True)
            inside(snapshots, f"{request.name}.json", what="saved state name").write_text(json.dumps({"checkpoint_id": state.checkpoint_id}), encoding="utf-8")
            return _saved(state)
        case "restore":
            saved = json.loads(inside(snapshots, f"{request.name}.json", what="saved state name").read_text(encoding="utf-8"))
            return _saved(session.restore(saved["checkpoint_id"]))
        case "direct_call" | "grant":  # never handed over: the column has no tool boundary outside its graph
            raise ValueError(f"{request.action} needs a tool boundary this column does not have")


def _saved(state: Checkpoint) -> StepOutcome:
    return outcome_of(state)  # a saved state still "running" was interrupted mid-run: crashed


def _no_issuing() -> str:
    raise RuntimeError("the graph verifies approval tokens; only the human approver issues them")
