"""The ``handwritten`` column: the engine over the shared fixture world, one driver step per worker.

Every worker builds the engine afresh from the files in the scratch directory (engine
records in ``engine.sqlite``, fault firings in ``faults.sqlite``; the ledger is the
runner's, reached through its channel), so a resume after a kill knows only what was on disk.
Direct calls of a scenario (``direct_call``, ``grant``: a client other than the agent) meet the engine's
tool boundary (``handwritten.boundary``), whose records live in the scratch directory too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, ClassVar, cast

from handwritten.approvals import ApprovalAuthority
from handwritten.boundary import ToolBoundary
from handwritten.canonical import args_hash
from handwritten.checkpoint import AgentState, SqliteCheckpointStore
from handwritten.engine import Engine, Hooks, ReconcileOutcome, RunResult
from handwritten.events import Event
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.model import Model
from handwritten.session_records import SessionRecords
from handwritten.tools import ToolRegistry, ToolSpec
from handwritten.wire_model import OpenAIWireModel
from harness.canonical_io import canonical_line
from harness.column_side.approver import APPROVAL_SECRET, TOKEN_TTL_S
from harness.column_side.driver import trace_path
from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.protocol import ColumnAdapter, PendingCall, StepOutcome, StepRequest
from harness.column_side.scripted_model import ScriptedModel
from harness.column_side.trace.facts import facts_from_engine_events
from harness.column_side.wire.kill import arm_wire_kills
from harness.paths import inside
from harness.records import ScenarioRun, StepFacts
from harness.scenarios import Scenario

Sink = Callable[[Event], None]


class HandwrittenColumn(ColumnAdapter):
    """The reference: the engine's own loop, approvals, checkpoints and idempotency records.

    Its tool boundary serves the scenario's direct calls in process, over the same fixture world; the
    ``handwritten_mcp`` column overrides the hooks below to put an MCP server in between."""

    name = "handwritten"
    modes: ClassVar[tuple[str, ...]] = ("contract", "wire")  # wire: the same engine, its model over HTTP (handwritten.wire_model) on the runner's scripted server
    boundary = True
    mcp_faults = True  # in process a call just loses its answer; over MCP (the subclass) its server meets the fault
    idempotency_store = SqliteIdempotencyStore  # a test-only broken column swaps it for one that forgets

    def perform(self, scenario: Scenario, scratch: Path, request: StepRequest, mode: str = "contract") -> StepOutcome:
        """Run one driver step in this (worker) process."""
        self.check_mode(mode)
        return _perform(self, scenario, scratch, request)

    def model(self, scenario: Scenario, scratch: Path, request: StepRequest, world: FixtureWorld) -> Model:
        """The scripted model in process; in ``wire`` mode (``request.model_url``), the engine's own OpenAI-client model
        on the runner's scripted server, whose kill faults fire as each answer arrives."""
        if request.model_url is None:
            return ScriptedModel.of(scenario, scratch, world.faults)
        arm_wire_kills(world.faults)
        return OpenAIWireModel(request.model_url, session_id=scenario.session_id)

    def facts(self, run: ScenarioRun, mode: str = "contract") -> list[StepFacts]:
        """What the engine's own trace says happened in each step."""
        return facts_from_engine_events(run)

    def detail(self, run: ScenarioRun, mode: str = "contract") -> dict[str, Any]:
        """Native information, recorded but never compared: the engine's final checkpoint summary."""
        return _detail(run)

    def tool_schemas(self, names: list[str], mode: str = "contract") -> dict[str, dict[str, Any]]:
        """Each engine ``ToolSpec``'s ``input_schema`` (``FixtureWorld.tool_specs`` makes them; the registry sends it as it is),
        built on no world: the schema is read, the tools never run."""
        return {spec.name: dict(spec.input_schema) for spec in FixtureWorld.tool_specs(cast(FixtureWorld, None), names)}

    # -- hooks: where the engine's tools and the boundary live ----------------------------------------------

    def tools(self, scenario: Scenario, scratch: Path, request: StepRequest, world: FixtureWorld) -> AbstractContextManager[list[ToolSpec]]:
        """The engine's tools for one step: the fixture world's, in process."""
        return nullcontext(world.tool_specs(list(scenario.tools)))

    def boundary_records(self, scratch: Path, session: str) -> SessionRecords:
        """A session's boundary records (pending calls, grants, idempotency) in the scratch directory."""
        return SessionRecords(inside(scratch / "boundary", session, what="session id"))

    def call_boundary(self, scenario: Scenario, scratch: Path, request: StepRequest, world: FixtureWorld, sink: Sink) -> tuple[str, str | None]:
        """A direct call at the boundary, in process: its status and reason."""
        step = request.boundary or {}
        session = step.get("session", scenario.session_id)
        records = self.boundary_records(scratch, session)
        try:
            registry = ToolRegistry(world.tool_specs(list(scenario.tools)))
            boundary = ToolBoundary(registry, records, session, scenario.user, clock=lambda: request.now, trace=sink)
            result = boundary.call(step["tool"], step["arguments"], step.get("key"), claimed_approval="approval_meta" in step)
        finally:
            records.close()
        return result.status, result.reason

    def grant_at_boundary(self, scratch: Path, session: str, step: dict[str, Any], expires_at: float) -> bool:
        """The human approves a call waiting at the boundary (the step's ``tool`` and ``arguments``, and ``key`` when it
        names one, else the oldest such call): a grant written to the session's records, where the boundary reads it.
        False when no such call waits: a human grants what a call asked for, never ahead of it."""
        records = self.boundary_records(scratch, session)
        try:
            digest = args_hash(step["arguments"])
            waiting = [p for p in records.pending() if p["tool"] == step["tool"] and p["args_hash"] == digest and ("key" not in step or p["key"] == step["key"])]
            return bool(waiting) and records.grant_pending(waiting[0]["pending_id"], expires_at) is not None
        finally:
            records.close()

    def approved_in_engine(self, scratch: Path, scenario: Scenario, call: Any, now: float) -> None:
        """An approval the driver gives the engine also reaches the tools' boundary, if they have one of their own."""

    def settle_at_boundary(self, scratch: Path, session: str, call_id: str, outcome: str) -> None:
        """An operator's reconcile also reaches the tools' boundary, if they have one of their own."""


def _perform(column: HandwrittenColumn, scenario: Scenario, scratch: Path, request: StepRequest) -> StepOutcome:
    index, now = request.index, request.now
    world = FixtureWorld(scratch, list(scenario.faults), may_kill=True)
    engine_db = str(scratch / "engine.sqlite")
    checkpoints = SavesObserved(engine_db, world.faults.saved)
    trace_file = open(trace_path(scratch), "a", encoding="utf-8", buffering=1)  # line-buffered: survives a kill

    def sink(event: Event) -> None:
        trace_file.write(canonical_line({"driver_step": index, **event.to_json()}))

    session = scenario.session_id
    match request.action:
        case "grant":  # the human approves a call waiting at the boundary, out of band: written to that session's records
            step = request.boundary or {}
            granted = column.grant_at_boundary(scratch, step.get("session", session), step, now + float(step.get("ttl_s", TOKEN_TTL_S)))
            state = _require(checkpoints.load(session), session)
            return _outcome_of_state(state) if granted else _boundary_outcome("refused", "not_pending", state)
        case "direct_call":
            status, reason = column.call_boundary(scenario, scratch, request, world, sink)
            return _boundary_outcome(status, reason, _require(checkpoints.load(session), session))
    with column.tools(scenario, scratch, request, world) as specs:
        engine = Engine(
            model=column.model(scenario, scratch, request, world),
            registry=ToolRegistry(specs),
            checkpoints=checkpoints,
            idempotency=column.idempotency_store(engine_db),
            approvals=ApprovalAuthority(APPROVAL_SECRET, clock=lambda: now, new_token_id=_no_issuing),
            trace=sink,
            hooks=Hooks(after_checkpoint=lambda call: world.faults.fire("engine.kill_after_checkpoint", call_id=call.call_id)),
            max_steps=scenario.max_steps,
            system_prompt=scenario.system_prompt,
            user=scenario.user,
        )
        return _engine_step(column, engine, checkpoints, scenario, scratch, request)


class SavesObserved(SqliteCheckpointStore):
    """The engine's checkpoint store, each save then ``after_save`` (the fault plan's state-save hook): harness code."""

    def __init__(self, path: str, after_save: Callable[[], None]) -> None:
        super().__init__(path)
        self._after_save = after_save

    def save(self, state: AgentState) -> None:
        super().save(state)
        self._after_save()


def _engine_step(column: HandwrittenColumn, engine: Engine, checkpoints: SqliteCheckpointStore, scenario: Scenario, scratch: Path, request: StepRequest) -> StepOutcome:
    session = scenario.session_id
    snapshots = scratch / "snapshots"
    match request.action:
        case "run" | "deliver_again":
            assert request.event is not None
            result = engine.run(session, request.event.input, request.event.event_id)
        case "approve" | "misuse_token":
            if request.action == "approve":
                state = checkpoints.load(session)
                call = next((c for c in (state.pending_approval if state else ()) if c.call_id == request.call_id), None)
                if call is not None:
                    column.approved_in_engine(scratch, scenario, call, request.now)
            result = engine.approve(session, _call(request), request.token or "")
        case "reject":
            result = engine.reject(session, _call(request), request.reason)
        case "resume":
            result = engine.resume(session)
        case "reconcile":
            column.settle_at_boundary(scratch, session, _call(request), _reconcile_outcome(request))
            result = engine.reconcile_uncertain(session, _call(request), _reconcile_outcome(request))
        case "snapshot":
            state = _require(checkpoints.load(session), session)
            snapshots.mkdir(exist_ok=True)
            inside(snapshots, f"{request.name}.json", what="saved state name").write_text(json.dumps(state.to_json()), encoding="utf-8")
            return _outcome_of_state(state)
        case "restore":
            state = AgentState.from_json(json.loads(inside(snapshots, f"{request.name}.json", what="saved state name").read_text(encoding="utf-8")))
            checkpoints.save(state)  # the saved state is delivered again, as a retried webhook would
            return _outcome_of_state(state)
        case _:
            raise ValueError(f"unknown driver action {request.action!r}")
    return _outcome(result)


def _boundary_outcome(status: str, reason: str | None, state: AgentState) -> StepOutcome:
    """A direct call's outcome as a step: ran (``completed``), stopped for reconciliation, or refused with the reason.
    The agent's session stays where it was: a direct call does not touch it."""
    session_status = state.status if state.status != "running" else "crashed"
    if status in ("ok", "replayed"):
        return StepOutcome("completed", session_status, None, _pending(state))
    if status == "uncertain":
        return StepOutcome("reconcile_required", session_status, reason, _pending(state))
    return StepOutcome("refused", session_status, reason or status, _pending(state))


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
    return StepOutcome(status, status, None, _pending(state))


def _detail(run: ScenarioRun) -> dict[str, Any]:
    checkpoints = SqliteCheckpointStore(str(run.scratch / "engine.sqlite"))
    try:
        state = checkpoints.load(run.scenario.session_id)
    finally:
        checkpoints.close()
    if state is None:
        return {"checkpoint": None}
    return {"checkpoint": {"status": state.status, "step": state.step, "messages": len(state.messages), "seen_event_ids": list(state.seen_event_ids)}}


