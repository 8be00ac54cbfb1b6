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
from handwritten.engine import Engine, Hooks, RunResult
from handwritten.events import Event
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import ToolRegistry

from .approver import APPROVAL_SECRET
from .canonical_io import canonical_line
from .driver import ScenarioRun, trace_path
from .observables import StepFacts
from .scenarios import Scenario
from .scripted_model import ScriptedModel
from .trace_facts import facts_from_engine_events
from .world import FixtureWorld

COLUMN = "handwritten"
MODES = ("contract",)


def perform(scenario: Scenario, scratch: Path, request: dict[str, Any], mode: str = "contract") -> dict[str, Any]:
    """Run one driver step in this (worker) process."""
    index, step, now = request["index"], request["step"], request["now"]
    world = FixtureWorld(scratch, list(scenario.faults), may_kill=True)
    engine_db = str(scratch / "engine.sqlite")
    checkpoints = SqliteCheckpointStore(engine_db)
    trace_file = open(trace_path(scratch), "a", encoding="utf-8", buffering=1)  # line-buffered: survives a kill

    def sink(event: Event) -> None:
        trace_file.write(canonical_line({"driver_step": index, **event.to_json()}))

    engine = Engine(
        model=ScriptedModel(
            scenario.model_script,
            user_inputs=scenario.user_inputs,
            system_prompt=scenario.system_prompt,
            log_path=scratch / "model_log.jsonl",
            faults=world.faults,
        ),
        registry=ToolRegistry(world.tool_specs(list(scenario.tools))),
        checkpoints=checkpoints,
        idempotency=SqliteIdempotencyStore(engine_db),
        approvals=ApprovalAuthority(APPROVAL_SECRET, clock=lambda: now, new_token_id=_no_issuing),
        trace=sink,
        hooks=Hooks(after_checkpoint=lambda call: world.faults.fire("engine.kill_after_checkpoint", call_id=call.call_id)),
        max_steps=scenario.max_steps,
        system_prompt=scenario.system_prompt,
    )
    session = scenario.session_id
    snapshots = scratch / "snapshots"
    match step["action"]:
        case "run" | "deliver_again":
            result = engine.run(session, request["event"]["input"], request["event"]["event_id"])
        case "approve" | "misuse_token":
            result = engine.approve(session, step["call_id"], request["token"])
        case "reject":
            result = engine.reject(session, step["call_id"], step.get("reason", "not approved"))
        case "resume":
            result = engine.resume(session)
        case "reconcile":
            result = engine.reconcile_uncertain(session, step["call_id"], step["outcome"])
        case "snapshot":
            state = _require(checkpoints.load(session), session)
            snapshots.mkdir(exist_ok=True)
            (snapshots / f"{step['name']}.json").write_text(json.dumps(state.to_json()), encoding="utf-8")
            return _outcome_of_state(state)
        case "restore":
            state = AgentState.from_json(json.loads((snapshots / f"{step['name']}.json").read_text(encoding="utf-8")))
            checkpoints.save(state)  # the saved state is delivered again, as a retried webhook would
            return _outcome_of_state(state)
        case other:
            raise ValueError(f"unknown driver action {other!r}")
    return _outcome(result)


def _no_issuing() -> str:
    raise RuntimeError("the engine verifies approval tokens; only the human approver issues them")


def _require(state: AgentState | None, session: str) -> AgentState:
    if state is None:
        raise RuntimeError(f"no checkpoint for session {session!r}")
    return state


def _pending(state: AgentState) -> list[dict[str, Any]]:
    return [{"call_id": c.call_id, "tool": c.tool, "args": c.args} for c in state.pending_approval]


def _outcome(result: RunResult) -> dict[str, Any]:
    return {"status": result.status, "session_status": result.state.status, "refusal": result.refusal, "pending": _pending(result.state)}


def _outcome_of_state(state: AgentState) -> dict[str, Any]:
    # A saved state that is still "running" was interrupted mid-run: reporting it as done would hide that.
    status = state.status if state.status != "running" else "crashed"
    return {"status": status, "session_status": state.status, "refusal": None, "pending": _pending(state)}


def detail(run: ScenarioRun, mode: str = "contract") -> dict[str, Any]:
    """Native information, recorded but never compared: the engine's final checkpoint summary."""
    checkpoints = SqliteCheckpointStore(str(run.scratch / "engine.sqlite"))
    try:
        state = checkpoints.load(run.scenario.session_id)
    finally:
        checkpoints.close()
    if state is None:
        return {"checkpoint": None}
    return {"checkpoint": {"status": state.status, "step": state.step, "messages": len(state.messages), "seen_event_ids": list(state.seen_event_ids)}}


def facts(run: ScenarioRun, mode: str = "contract") -> list[StepFacts]:
    """What the engine's own trace says happened in each step (the column-specific part of an observation)."""
    return facts_from_engine_events(run)


