"""The ``local_state_graph`` column: the contract graph over the shared fixture world, one driver step per worker.

Every worker builds everything afresh from the files in the scratch directory (graph
checkpoints and idempotency records in ``state_graph.sqlite``, fault firings in
``faults.sqlite``; the ledger is the runner's), so a resume after a kill knows only what was on disk.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from handwritten.approvals import ApprovalAuthority
from handwritten.events import Event
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import ToolRegistry
from harness.approver import APPROVAL_SECRET
from harness.canonical_io import canonical_line
from harness.driver import ScenarioRun, trace_path
from harness.observables import StepFacts
from harness.scenarios import Scenario
from harness.scripted_model import ScriptedModel
from harness.trace_facts import facts_from_engine_events
from harness.world import FixtureWorld

from .checkpointer import Checkpoint, MemorySaver, SqliteSaver
from .contract import Services, contract_graph
from .session import ContractSession, Outcome

COLUMN = "local_state_graph"
MODES = ("contract",)


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


def perform(scenario: Scenario, scratch: Path, request: dict[str, Any], mode: str) -> dict[str, Any]:
    """Run one driver step in this (worker) process."""
    _check(mode)
    index, step, now = request["index"], request["step"], request["now"]
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
            model=ScriptedModel(
                scenario.model_script,
                user_inputs=scenario.user_inputs,
                system_prompt=scenario.system_prompt,
                log_path=scratch / "model_log.jsonl",
                faults=world.faults,
            ),
            registry=ToolRegistry(world.tool_specs(list(scenario.tools))),
            approvals=ApprovalAuthority(APPROVAL_SECRET, clock=lambda: now, new_token_id=_no_issuing),
            idempotency=SqliteIdempotencyStore(database),
            emit=emit,
            max_steps=scenario.max_steps,
            system_prompt=scenario.system_prompt,
        )
        graph = contract_graph().compile(SqliteSaver(database), after_step=after_step)
        outcome = _act(ContractSession(graph, scenario.session_id, services), step, request, scratch / "snapshots")
    return {"status": outcome.status, "session_status": outcome.session_status, "refusal": outcome.refusal, "pending": outcome.pending}


def _act(session: ContractSession, step: dict[str, Any], request: dict[str, Any], snapshots: Path) -> Outcome:
    """One driver action on the session."""
    match step["action"]:
        case "run" | "deliver_again":
            return session.deliver(request["event"]["event_id"], request["event"]["input"])
        case "approve" | "misuse_token":
            return session.approve(step["call_id"], request["token"])
        case "reject":
            return session.reject(step["call_id"], step.get("reason", "not approved"))
        case "resume":
            return session.resume()
        case "reconcile":
            return session.reconcile(step["call_id"], step["outcome"])
        case "snapshot":  # the graph keeps every checkpoint: a snapshot is the id of the latest
            state = session.state()
            snapshots.mkdir(exist_ok=True)
            (snapshots / f"{step['name']}.json").write_text(json.dumps({"checkpoint_id": state.checkpoint_id}), encoding="utf-8")
            return _saved(state)
        case "restore":
            saved = json.loads((snapshots / f"{step['name']}.json").read_text(encoding="utf-8"))
            return _saved(session.restore(saved["checkpoint_id"]))
        case other:
            raise ValueError(f"unknown driver action {other!r}")


def facts(run: ScenarioRun, mode: str) -> list[StepFacts]:
    """What the graph's own trace (in the engine's event vocabulary) says happened in each step."""
    _check(mode)
    return facts_from_engine_events(run)


def detail(run: ScenarioRun, mode: str) -> dict[str, Any]:
    """The graph's shape and the super-steps this scenario took across all its driver steps (never compared)."""
    _check(mode)
    graph = contract_graph().compile(MemorySaver())
    shape = graph.describe()
    super_steps = sum(1 for step in run.steps for e in step.trace if e["kind"] == SuperStep.kind)
    return {"graph": {**shape, "super_steps": super_steps, "mermaid": graph.mermaid()}}


def _saved(state: Checkpoint) -> Outcome:
    # A saved state that is still "running" was interrupted mid-run: reporting it as done would hide that.
    outcome = Outcome.of(state)
    return outcome if outcome.status != "running" else Outcome("crashed", outcome.session_status, None, outcome.pending)


def _check(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"{COLUMN} runs in modes {MODES}, not {mode!r}")


def _no_issuing() -> str:
    raise RuntimeError("the graph verifies approval tokens; only the human approver issues them")
