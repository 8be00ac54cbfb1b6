"""The ``handwritten`` column: the engine over the shared fixture world, one driver step per worker.

Every worker builds the engine afresh from the files in the scratch directory (engine
records in ``engine.sqlite``, fault firings in ``faults.sqlite``; the ledger is the
runner's, reached through its channel), so a resume after a kill knows only what was on disk.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from handwritten.approvals import ApprovalAuthority
from handwritten.checkpoint import AgentState, SqliteCheckpointStore
from handwritten.engine import Engine, Hooks, ReconcileOutcome, RunResult
from handwritten.events import Event
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import ToolRegistry
from harness.canonical_io import canonical_line
from harness.column_side.approver import APPROVAL_SECRET
from harness.column_side.driver import trace_path
from harness.column_side.protocol import ColumnAdapter, PendingCall, StepOutcome, StepRequest
from harness.column_side.scripted_model import ScriptedModel
from harness.column_side.trace_facts import facts_from_engine_events
from harness.column_side.world import FixtureWorld
from harness.records import ScenarioRun, StepFacts
from harness.scenarios import Scenario


class HandwrittenColumn(ColumnAdapter):
    """The reference: the engine's own loop, approvals, checkpoints and idempotency records."""

    name = "handwritten"
    modes = ("contract",)
    idempotency_store = SqliteIdempotencyStore  # a test-only broken column swaps it for one that forgets

    def perform(self, scenario: Scenario, scratch: Path, request: StepRequest, mode: str = "contract") -> StepOutcome:
        """Run one driver step in this (worker) process."""
        self.check_mode(mode)
        return _perform(scenario, scratch, request, self.idempotency_store)

    def facts(self, run: ScenarioRun, mode: str = "contract") -> list[StepFacts]:
        """What the engine's own trace says happened in each step."""
        return facts_from_engine_events(run)

    def detail(self, run: ScenarioRun, mode: str = "contract") -> dict[str, Any]:
        """Native information, recorded but never compared: the engine's final checkpoint summary."""
        return _detail(run)


def _perform(scenario: Scenario, scratch: Path, request: StepRequest, idempotency_store: Any) -> StepOutcome:
    index, now = request.index, request.now
    world = FixtureWorld(scratch, list(scenario.faults), may_kill=True)
    engine_db = str(scratch / "engine.sqlite")
    checkpoints = SqliteCheckpointStore(engine_db)
    trace_file = open(trace_path(scratch), "a", encoding="utf-8", buffering=1)  # line-buffered: survives a kill

    def sink(event: Event) -> None:
        trace_file.write(canonical_line({"driver_step": index, **event.to_json()}))

    engine = Engine(
        model=ScriptedModel.of(scenario, scratch, world.faults),
        registry=ToolRegistry(world.tool_specs(list(scenario.tools))),
        checkpoints=checkpoints,
        idempotency=idempotency_store(engine_db),
        approvals=ApprovalAuthority(APPROVAL_SECRET, clock=lambda: now, new_token_id=_no_issuing),
        trace=sink,
        hooks=Hooks(after_checkpoint=lambda call: world.faults.fire("engine.kill_after_checkpoint", call_id=call.call_id)),
        max_steps=scenario.max_steps,
        system_prompt=scenario.system_prompt,
    )
    session = scenario.session_id
    snapshots = scratch / "snapshots"
    match request.action:
        case "run" | "deliver_again":
            assert request.event is not None
            result = engine.run(session, request.event.input, request.event.event_id)
        case "approve" | "misuse_token":
            result = engine.approve(session, _call(request), request.token or "")
        case "reject":
            result = engine.reject(session, _call(request), request.reason)
        case "resume":
            result = engine.resume(session)
        case "reconcile":
            result = engine.reconcile_uncertain(session, _call(request), _reconcile_outcome(request))
        case "snapshot":
            state = _require(checkpoints.load(session), session)
            snapshots.mkdir(exist_ok=True)
            (snapshots / f"{request.name}.json").write_text(json.dumps(state.to_json()), encoding="utf-8")
            return _outcome_of_state(state)
        case "restore":
            state = AgentState.from_json(json.loads((snapshots / f"{request.name}.json").read_text(encoding="utf-8")))
            checkpoints.save(state)  # the saved state is delivered again, as a retried webhook would
            return _outcome_of_state(state)
    return _outcome(result)


def _call(request: StepRequest) -> str:
    assert request.call_id is not None
    return request.call_id


def _reconcile_outcome(request: StepRequest) -> ReconcileOutcome:
    match request.outcome:
        case "confirmed" | "not_executed" as outcome:
            return outcome
    # The scenario schema allows only those two; the engine would refuse anything else the same way.
    raise ValueError(f"reconcile outcome must be 'confirmed' or 'not_executed', not {request.outcome!r}")


def _no_issuing() -> str:
    raise RuntimeError("the engine verifies approval tokens; only the human approver issues them")


def _require(state: AgentState | None, session: str) -> AgentState:
    if state is None:
        raise RuntimeError(f"no checkpoint for session {session!r}")
    return state


def _pending(state: AgentState) -> tuple[PendingCall, ...]:
    return tuple(PendingCall(c.call_id, c.tool, c.args) for c in state.pending_approval)


def _outcome(result: RunResult) -> StepOutcome:
    # A session left "running" was interrupted mid-run (a kill): the step may be refused, the session is crashed.
    session_status = result.state.status if result.state.status != "running" else "crashed"
    return StepOutcome(result.status, session_status, result.refusal, _pending(result.state))


def _outcome_of_state(state: AgentState) -> StepOutcome:
    # A saved state that is still "running" was interrupted mid-run: reporting it as done would hide that.
    status = state.status if state.status != "running" else "crashed"
    return StepOutcome(status, state.status, None, _pending(state))  # type: ignore[arg-type]


def _detail(run: ScenarioRun) -> dict[str, Any]:
    checkpoints = SqliteCheckpointStore(str(run.scratch / "engine.sqlite"))
    try:
        state = checkpoints.load(run.scenario.session_id)
    finally:
        checkpoints.close()
    if state is None:
        return {"checkpoint": None}
    return {"checkpoint": {"status": state.status, "step": state.step, "messages": len(state.messages), "seen_event_ids": list(state.seen_event_ids)}}


