"""The ``agentscope`` column: an AgentScope 2.x ``Agent`` + ``Toolkit`` of ``FunctionTool``s + permission system + ``AgentState``.

Every driver step runs in a worker forked from the column process and rebuilds the
agent from the files in the scratch directory: the ``AgentState`` in
``agent_state.json`` (with the step's status in ``session.json``; the ledger is the
runner's, reached through its channel) and, in ``contract`` mode, the glue's records in
``contract.sqlite`` and ``intents.jsonl``. AgentScope is asynchronous: each step runs
its own event loop (``asyncio.run``), never one shared across the fork. Ids and
timestamps come from ``agentscope.set_id_factory`` / ``set_timestamp_factory``
(a counter per driver step, a fixed time), so the saved state is deterministic.

How the driver's steps map onto AgentScope (session id -> ``AgentState.session_id``):

- ``run``: ``agent.reply_stream(UserMsg(input))``; the state is saved when the reply
  returns. ``deliver_again``: the same input again; ``defaults`` sends it as a new user
  message (AgentScope has no inbound event id); ``contract`` claims the event id once
  and refuses a second delivery (``duplicate_event``).
- ``approve`` / ``misuse_token``: ``UserConfirmResultEvent(reply_id, [ConfirmResult(
  confirmed=True, tool_call=<the asking ToolCallBlock>)])``. ``defaults`` has no token:
  every misuse goes in as that confirmation; AgentScope binds it to the tool call id,
  so it confirms the named call when that call is asking and refuses (a ``ValueError``
  before the reply starts) when it is not. ``contract`` verifies the token first
  (``ApprovalAuthority``, single use by ``claim_once``) and refuses with the engine's
  reason, handing nothing to the agent.
- ``reject``: ``ConfirmResult(confirmed=False)``: AgentScope answers the call with a
  denied tool result and the model continues.
- ``resume``: ``reply(None)`` from the saved state in a fresh process. ``defaults``
  saves only when a reply returns, so a kill loses the whole step: the resume starts
  from the previous step's state (a new session when the first step died), and an
  approval given in the lost step is gone (AgentScope then refuses ``reply(None)``
  while a call is still asking). ``contract``'s glue also saves before and after every
  model turn and before every tool call.
- ``reconcile``: ``defaults`` refuses (``not supported by agentscope``: nothing records
  an uncertain call); ``contract`` resolves the glue's record and continues with
  ``reply(None)``.
- ``snapshot`` / ``restore``: AgentScope keeps no history; the snapshot is a copy of the
  saved ``AgentState`` file and a restore puts that copy back, so the next step
  continues from it (resuming the same saved state twice).

What AgentScope cannot express: a token bound to session, tool, arguments and expiry
(``defaults``: a confirmation carries none), an inbound event id, an idempotency
record, an uncertain outcome (a tool's ``TimeoutError`` becomes an ordinary error
result), a deny class of its own for a function tool (``defaults`` leaves
``drop_database`` at AgentScope's default, which asks), and a state saved inside a reply.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import agentscope

from adapters.glue_common import first_delivery, verify_approval
from handwritten.approvals import ApprovalAuthority
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import RiskClass, ToolRegistry
from harness.approver import APPROVAL_SECRET
from harness.canonical_io import canonical_line
from harness.driver import ScenarioRun, trace_path
from harness.observables import StepFacts, invalid_call_ids
from harness.scenarios import Scenario
from harness.trace_facts import facts_from_column_trace
from harness.world import FIXTURE_TOOLS, FixtureWorld

from .agent import build_agent
from .explain import explanations
from .glue import Contract, reconcile
from .session import STATE, AgentSession, Outcome, load_state, save_state

COLUMN = "agentscope"
MODES = ("defaults", "contract")
FIXED_TIME = "2026-01-01 00:00:00.000"


def prepare(mode: str) -> None:
    """Import AgentScope once in the column process (a heavy import): forked workers inherit it.

    This module's imports load ``agentscope`` already; AgentScope imports ``json_repair``
    only when it first parses tool arguments, so that happens here too, not in every worker."""
    import json_repair  # noqa: F401



def perform(scenario: Scenario, scratch: Path, request: dict[str, Any], mode: str) -> dict[str, Any]:
    """Run one driver step in this (worker) process."""
    _check(mode)
    ids = itertools.count()
    agentscope.set_id_factory(lambda: f"as-{request['index']}-{next(ids)}")  # unique across steps, stable across runs
    agentscope.set_timestamp_factory(lambda: FIXED_TIME)
    world = FixtureWorld(scratch, list(scenario.faults), may_kill=True)
    with open(trace_path(scratch), "a", encoding="utf-8", buffering=1) as trace:  # line-buffered: survives a kill

        def emit(event: dict[str, Any]) -> None:
            trace.write(canonical_line({"driver_step": request["index"], **event}))

        contract = _contract(scenario, scratch, world, emit) if mode == "contract" else None
        state = load_state(scratch, scenario.session_id)
        agent = build_agent(scenario, world, scratch, state, emit, contract, lambda s: save_state(scratch, s))
        session = AgentSession(agent, scratch, scenario, _gated(scenario), emit, contract)
        return _act(session, request, contract).to_json()


def _act(session: AgentSession, request: dict[str, Any], contract: Contract | None) -> Outcome:
    """One driver action on the session."""
    step = request["step"]
    match step["action"]:
        case "run" | "deliver_again":
            event = request["event"]
            # contract glue: start
            if contract is not None and not first_delivery(contract, event["event_id"]):
                session.emit({"kind": "duplicate_event", "event_id": event["event_id"]})
                return session.outcome(refusal="duplicate_event")
            # contract glue: end
            return session.deliver(event["input"])
        case "approve" | "misuse_token" | "reject":
            # contract glue: start
            if contract is not None:
                refusal = _refusal(session, contract, step, request)
                if refusal is not None:
                    session.emit({"kind": "approval_refused", "call_id": step["call_id"], "reason": refusal})
                    return session.outcome(refusal=refusal)
            # contract glue: end
            return session.decide(step["call_id"], confirmed=step["action"] != "reject")
        case "resume":
            return session.resume()
        case "reconcile":
            if contract is None:
                return session.outcome(refusal="not supported by agentscope")
            # contract glue: start
            if session.outcome().status != "reconcile_required":
                return session.outcome(refusal=f"no uncertain call {step['call_id']!r} to reconcile")
            reconcile(contract, step["call_id"], step["outcome"])
            return session.run(None)
            # contract glue: end
        case "snapshot":
            return session.snapshot(step["name"])
        case "restore":
            return session.restore(step["name"])
        case other:
            raise ValueError(f"unknown driver action {other!r}")


def _gated(scenario: Scenario) -> list[str]:
    """The scenario's high-risk tools: the ones a human confirms."""
    return [name for name in scenario.tools if FIXTURE_TOOLS[name].risk is RiskClass.HIGH_RISK]


# contract glue: start
def _contract(scenario: Scenario, scratch: Path, world: FixtureWorld, emit: Any) -> Contract:
    return Contract(
        session_id=scenario.session_id,
        registry=ToolRegistry(world.tool_specs(list(scenario.tools))),
        idempotency=SqliteIdempotencyStore(str(scratch / "contract.sqlite")),
        intents=scratch / "intents.jsonl",
        emit=emit,
        fire_after_intent=lambda call_id: world.faults.fire("engine.kill_after_checkpoint", call_id=call_id),
        max_steps=scenario.max_steps,
    )


def _refusal(session: AgentSession, contract: Contract, step: dict[str, Any], request: dict[str, Any]) -> str | None:
    """The engine's reason to refuse this answer: no such pending call, or a token that does not approve it."""
    call = next((p for p in session.outcome().pending if p["call_id"] == step["call_id"]), None)
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
    return facts_from_column_trace(run, dedup_by="glue" if mode == "contract" else "framework", admitted_kind="permission")


def detail(run: ScenarioRun, mode: str) -> dict[str, Any]:
    """The saved ``AgentState`` in brief, the agent's configuration, and the reasons behind the run's differences."""
    _check(mode)
    saved = (run.scratch / STATE).exists()
    state = load_state(run.scratch, run.scenario.session_id)
    calls = [b for m in state.context for b in m.get_content_blocks("tool_call")]
    return {
        "agent_state": {
            "saved": saved,
            "session_id": state.session_id,
            "messages": len(state.context),
            "roles": [m.role for m in state.context],
            "tool_calls": [{"id": c.id, "name": c.name, "state": str(c.state)} for c in calls],
            "cur_iter": state.cur_iter,
            "bytes": len(state.model_dump_json()) if saved else 0,
        },
        "explanations": explanations(run, mode, invalid_call_ids(run)),
    }


def _check(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"{COLUMN} runs in modes {MODES}, not {mode!r}")
