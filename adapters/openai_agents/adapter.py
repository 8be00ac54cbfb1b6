"""The ``openai_agents`` column: OpenAI Agents SDK ``Agent`` + ``Runner`` + ``needs_approval`` + ``RunState``.

Every driver step runs in a worker forked from the column process (which imported the
SDK, tracing off) and rebuilds the agent from the files in the scratch directory: the
conversation in ``session.sqlite`` (``SQLiteSession``, session id = the scenario's
session id), the paused run in ``run_state.json`` (``RunState`` JSON), the step's outcome
in ``status.json`` (the ledger is the runner's, reached through its channel) and, in
``contract`` mode, the glue's records in ``contract.sqlite`` and ``intents.jsonl``.

How the driver's steps map onto the SDK:

- ``run``: ``Runner.run(agent, input, session=SQLiteSession(session id))``; a paused run
  (``result.interruptions``) is saved with ``result.to_state().to_json()``.
  ``deliver_again``: the same input again; ``defaults`` appends it as a new user turn
  (the SDK has no inbound event id); ``contract`` claims the event id once and refuses
  a second delivery (``duplicate_event``).
- ``approve`` / ``misuse_token`` / ``reject``: ``await RunState.from_json(agent, data)``,
  ``state.approve(item)`` / ``state.reject(item, rejection_message=reason)`` on the
  ``ToolApprovalItem`` of the named call, then ``Runner.run(agent, state, session=...)``.
  ``defaults`` has no token: every misuse goes in as the approval the docs teach (it runs
  the named call when it is pending; with no item pending for that call there is nothing
  to approve and nothing changes). ``contract`` verifies the token first
  (``ApprovalAuthority``, single use by ``claim_once``), refuses with the engine's reason,
  and saves the decided RunState before running it (the adapter's checkpoint).
- ``resume``: from the saved RunState when there is one (the one saved at the pause:
  the SDK writes nothing while a run goes on), else, after a crash mid-run, from the
  session's history (``Runner.run(agent, [], session=...)``: the model is asked again).
- ``reconcile``: ``defaults`` refuses (``not supported by openai_agents``: nothing records
  an uncertain call); ``contract`` hands the outcome to the glue and resumes from the
  saved RunState; the glue settles the uncertain record when the SDK invokes the call.
- ``snapshot`` / ``restore``: a copy of the saved RunState JSON; a restore puts the copy
  back, so the next decision applies to the same paused run again.

What the SDK cannot express: a token bound to session, tool, arguments and expiry, an
inbound event id, an idempotency record across runs, an uncertain outcome, a checkpoint
inside a turn (between a call's intent and its executor), holding back a turn's
no-approval calls while another call of the turn awaits approval, and answering a
repeated tool call id (the SDK drops it). See MAPPING.md.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import agents

from adapters.glue_common import first_delivery, verify_approval
from handwritten.approvals import ApprovalAuthority
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import ToolRegistry
from harness.approver import APPROVAL_SECRET
from harness.canonical_io import canonical_line
from harness.driver import ScenarioRun, trace_path
from harness.observables import StepFacts, invalid_call_ids
from harness.scenarios import Scenario
from harness.sibling_order import sibling_orders
from harness.trace_facts import facts_from_column_trace
from harness.world import FixtureWorld

from .agent import build_agent
from .explain import explanations
from .glue import Contract
from .session import STATE, AgentSession, Outcome

COLUMN = "openai_agents"
MODES = ("defaults", "contract")


def prepare(mode: str) -> None:
    """Import the SDK (and openai) once in the column process, tracing off: forked workers inherit both."""
    import openai  # noqa: F401

    agents.set_tracing_disabled(True)



def schedules(scenario: Scenario, mode: str) -> tuple[str, ...]:
    """The SDK runs a turn's function tools at the same time (``asyncio.to_thread``), so a kill inside one call
    races its siblings: such a scenario runs once per sibling order (``harness.sibling_order``). Nothing else
    races: the SDK writes nothing in the background."""
    return sibling_orders(scenario)


def perform(scenario: Scenario, scratch: Path, request: dict[str, Any], mode: str) -> dict[str, Any]:
    """Run one driver step in this (worker) process."""
    _check(mode)
    agents.set_tracing_disabled(True)  # inherited from prepare() in the column; set again for a direct caller
    world = FixtureWorld(scratch, list(scenario.faults), may_kill=True)
    with open(trace_path(scratch), "a", encoding="utf-8", buffering=1) as trace:  # line-buffered: survives a kill

        def emit(event: dict[str, Any]) -> None:
            trace.write(canonical_line({"driver_step": request["index"], **event}))

        contract = _contract(scenario, scratch, world, emit) if mode == "contract" else None
        options: dict[str, Any] = {}
        # contract glue: start
        if contract is not None:
            options["max_turns"] = scenario.max_steps  # the SDK's own step bound carries the scenario's
        # contract glue: end
        session = AgentSession(build_agent(scenario, world, scratch, contract), scenario.session_id, scratch, emit, contract, options)
        return asyncio.run(_act(session, request, scratch / "snapshots", contract)).to_json()


async def _act(session: AgentSession, request: dict[str, Any], snapshots: Path, contract: Contract | None) -> Outcome:
    """One driver action on the session."""
    step = request["step"]
    match step["action"]:
        case "run" | "deliver_again":
            event = request["event"]
            # contract glue: start
            if contract is not None and not first_delivery(contract, event["event_id"]):
                session.emit({"kind": "duplicate_event", "event_id": event["event_id"]})
                return await session.outcome(refusal="duplicate_event")
            # contract glue: end
            return await session.deliver(event["input"])
        case "approve" | "misuse_token" | "reject":
            # contract glue: start
            if contract is not None:
                refusal = await _refusal(session, contract, step, request)
                if refusal is not None:
                    session.emit({"kind": "approval_refused", "call_id": step["call_id"], "reason": refusal})
                    return await session.outcome(refusal=refusal)
            # contract glue: end
            if step["action"] == "reject":
                return await session.decide(step["call_id"], approve=False, reason=step.get("reason", "not approved"))
            return await session.decide(step["call_id"], approve=True)
        case "resume":
            return await session.resume()
        case "reconcile":
            if contract is None:
                return await session.outcome(refusal="not supported by openai_agents")
            # contract glue: start
            if session.status() != "reconcile_required":
                return await session.outcome(refusal=f"no uncertain call {step['call_id']!r} to reconcile")
            contract.settle = (step["call_id"], step["outcome"])
            return await session.resume()
            # contract glue: end
        case "snapshot":
            session.snapshot(snapshots / f"{step['name']}.json")
            return await session.outcome()
        case "restore":
            return await session.restore(snapshots / f"{step['name']}.json")
        case other:
            raise ValueError(f"unknown driver action {other!r}")


# contract glue: start
def _contract(scenario: Scenario, scratch: Path, world: FixtureWorld, emit: Any) -> Contract:
    return Contract(
        session_id=scenario.session_id,
        registry=ToolRegistry(world.tool_specs(list(scenario.tools))),
        idempotency=SqliteIdempotencyStore(str(scratch / "contract.sqlite")),
        intents=scratch / "intents.jsonl",
        emit=emit,
        fire_after_intent=lambda call_id: world.faults.fire("engine.kill_after_checkpoint", call_id=call_id),
        starting=world.starting,
        finished=world.finished,
    )


async def _refusal(session: AgentSession, contract: Contract, step: dict[str, Any], request: dict[str, Any]) -> str | None:
    """The engine's reason to refuse this answer: no such pending call, or a token that does not approve it."""
    call = next((p for p in await session.pending() if p["call_id"] == step["call_id"]), None) if session.status() == "awaiting_approval" else None
    if call is None:
        return "not_pending"
    if step["action"] == "reject":
        return None
    authority = ApprovalAuthority(APPROVAL_SECRET, clock=lambda: request["now"], new_token_id=_no_issuing)
    return verify_approval(contract, authority, call, request["token"])


def _no_issuing() -> str:
    raise RuntimeError("the glue verifies approval tokens; only the human approver issues them")
# contract glue: end


def facts(run: ScenarioRun, mode: str) -> list[StepFacts]:
    """What the column's own trace says happened in each step."""
    _check(mode)
    return facts_from_column_trace(run, dedup_by="glue" if mode == "contract" else "framework")


def detail(run: ScenarioRun, mode: str) -> dict[str, Any]:
    """The saved RunState and the session's history at the end, and the reasons behind this run's differences."""
    _check(mode)
    state_file = run.scratch / STATE
    state = json.loads(state_file.read_text(encoding="utf-8")) if state_file.exists() else None
    history = run.scratch / "session.sqlite"
    items: list[str] = []
    if history.exists():
        with closing(sqlite3.connect(history)) as db:
            rows = db.execute("SELECT message_data FROM agent_messages ORDER BY id").fetchall()
        items = [_item_kind(json.loads(row[0])) for row in rows]
    return {
        "run_state": None if state is None else {
            "schema_version": state["$schemaVersion"],
            "current_turn": state["current_turn"],
            "max_turns": state["max_turns"],
            "interruptions": sorted(i["call_id"] for i in _interruptions(state)),
        },
        "session_items": items,
        "explanations": explanations(run, mode, invalid_call_ids(run)),
    }


def _interruptions(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The paused calls a saved RunState holds (its current step's approval items)."""
    step = state.get("current_step") or {}
    data = step.get("data") or {}
    return [i.get("raw_item", i) for i in data.get("interruptions", [])]


def _item_kind(item: dict[str, Any]) -> str:
    """A session item as ``type[:call id]`` (or ``message:role``)."""
    if "call_id" in item:
        return f"{item.get('type')}:{item['call_id']}"
    return f"{item.get('type', 'message')}:{item.get('role')}"


def _check(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"{COLUMN} runs in modes {MODES}, not {mode!r}")
