"""The ``langchain`` column: ``langchain.agents.create_agent`` + ``HumanInTheLoopMiddleware`` + ``SqliteSaver``.

Every driver step runs in a worker forked from the column process and rebuilds the
agent from the files in the scratch directory: LangGraph checkpoints in
``checkpoints.sqlite``, the world's ledger in ``world.sqlite`` and, in ``contract``
mode, the glue's records in ``contract.sqlite`` and ``intents.jsonl``.

How the driver's steps map onto LangChain (session id -> ``thread_id``):

- ``run``: ``agent.stream({"messages": [user input]}, {"configurable": {"thread_id": session}})``.
  ``deliver_again``: the same input again; ``defaults`` appends it as a new user turn
  (LangChain has no inbound event id); ``contract`` claims the event id once and
  refuses a second delivery (``duplicate_event``).
- ``approve`` / ``misuse_token``: ``Command(resume={"decisions": [{"type": "approve"}]})``.
  ``defaults`` has no token: every misuse is passed on as the approval the docs teach,
  so the framework approves whatever interrupt is pending (a decision names no call)
  and accepts a decision with nothing pending silently. ``contract`` verifies the
  token first (``ApprovalAuthority``, single use by ``claim_once``) and refuses with
  the engine's reason, handing nothing to the agent.
- ``reject``: ``{"type": "reject", "message": reason}``: the middleware answers the call
  with an error ``ToolMessage`` and the model continues.
- ``resume``: always ``stream(None)``, the way LangGraph continues a saved state, from the
  latest checkpoint of the thread (the head after a restore): LangGraph decides what runs
  (the tasks left, an interrupted node with an answer saved before the kill, or nothing on
  a finished thread); the adapter never decides that nothing needs to run. With
  LangGraph's default asynchronous durability (``defaults``) the latest checkpoint may lag
  one super-step behind a kill: a scenario with a kill in the model or a tool runs once per
  forced ordering, ``<scenario>@write_held`` (the writes of the super-step before the killed
  one never land) and ``<scenario>@write_landed`` (every write submitted before the kill
  lands); see ``adapters/checkpoint_schedule.py``. ``contract`` writes with
  ``durability="sync"``: no write races. In both modes a kill inside one call of a batch
  races the other calls' tasks: ``@siblings_first`` and ``@kill_first`` pin it.
- Status: ``completed`` only when LangGraph finished the run itself (no task left, no
  interrupt, the last message an ``AIMessage`` without tool calls); tasks left (a run that
  died mid-way) or no final answer with nothing left to run (a lost run) is ``crashed``.
- ``reconcile``: ``defaults`` refuses (``not supported by langchain``: nothing records an
  uncertain call); ``contract`` answers the glue's reconcile interrupt with
  ``Command(resume={"outcome": ...})``.
- ``snapshot`` / ``restore``: the snapshot is the latest checkpoint id; a restore makes
  the next step continue from that checkpoint (time travel), which forks the thread.

What LangChain cannot express: a token bound to session, tool, arguments and expiry
(``defaults``: the decision carries none), a decision bound to a call id (batched
HITL matches decisions to reviewed calls by position, so one driver decision cannot
answer one of several reviewed calls of a turn), an inbound event id, an idempotency
record, and an uncertain outcome.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langgraph.types import Command

from adapters import checkpoint_schedule
from adapters.glue_common import first_delivery, verify_approval
from handwritten.approvals import ApprovalAuthority
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import ToolRegistry
from harness.approver import APPROVAL_SECRET
from harness.canonical_io import canonical_line
from harness.driver import ScenarioRun, trace_path
from harness.observables import StepFacts, invalid_call_ids
from harness.scenarios import Scenario
from harness.trace_facts import facts_from_column_trace
from harness.world import FixtureWorld

from .agent import build_agent, checkpointer, gated_tools
from .explain import explanations
from .glue import Contract, ContractMiddleware
from .session import AgentSession, Outcome

COLUMN = "langchain"
MODES = ("defaults", "contract")


def prepare(mode: str) -> None:
    """Import LangChain and LangGraph once in the column process: forked workers inherit them."""
    import langchain.agents  # noqa: F401
    import langgraph.checkpoint.sqlite  # noqa: F401


def schedules(scenario: Scenario, mode: str) -> tuple[str, ...]:
    """The forced orderings a scenario runs under (``adapters/checkpoint_schedule.py``): in ``defaults``
    (asynchronous durability) a kill inside the model or a tool races the checkpoint write (``write_held``,
    ``write_landed``); in both modes a kill inside one call of a batch races the turn's other call tasks
    (``siblings_first``, ``kill_first``)."""
    _check(mode)
    return checkpoint_schedule.schedules(scenario, mode)


def perform(scenario: Scenario, scratch: Path, request: dict[str, Any], mode: str) -> dict[str, Any]:
    """Run one driver step in this (worker) process."""
    _check(mode)
    world = FixtureWorld(scratch, list(scenario.faults), may_kill=True)
    with open(trace_path(scratch), "a", encoding="utf-8", buffering=1) as trace:  # line-buffered: survives a kill

        def emit(event: dict[str, Any]) -> None:
            trace.write(canonical_line({"driver_step": request["index"], **event}))

        contract = _contract(scenario, scratch, world, emit) if mode == "contract" else None
        saver = checkpointer(scratch, request.get("schedule"), world.faults)  # a schedule pins the async write against a kill
        world.know_dispatch(checkpoint_schedule.dispatched_calls)  # ... and orders a kill's siblings among the calls dispatched
        agent = build_agent(scenario, world, scratch, saver, ContractMiddleware(contract) if contract else None)
        session = AgentSession(agent, scenario.session_id, gated_tools(scenario), emit, scratch / "head.json", contract)
        try:
            return _act(session, request, scratch / "snapshots", contract).to_json()
        except Exception as exc:  # e.g. the tool node re-raised a tool's exception: MAPPING.md says which ones are LangChain's own
            emit({"kind": "run_failed", "error": f"{type(exc).__name__}: {exc}"})
            raise


def _act(session: AgentSession, request: dict[str, Any], snapshots: Path, contract: Contract | None) -> Outcome:
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
            if step["action"] == "reject":
                return session.decide(step["call_id"], {"type": "reject", "message": step.get("reason", "not approved")})
            return session.decide(step["call_id"], {"type": "approve"})
        case "resume":
            return session.resume()
        case "reconcile":
            if contract is None:
                return session.outcome(refusal="not supported by langchain")
            # contract glue: start
            if session.outcome().status != "reconcile_required":
                return session.outcome(refusal=f"no uncertain call {step['call_id']!r} to reconcile")
            return session.run(Command(resume={"outcome": step["outcome"]}))
            # contract glue: end
        case "snapshot":
            return session.snapshot(snapshots / f"{step['name']}.json")
        case "restore":
            return session.restore(snapshots / f"{step['name']}.json")
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
        handover=world.handover,
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
    return facts_from_column_trace(run, dedup_by="glue" if mode == "contract" else "framework")


def detail(run: ScenarioRun, mode: str) -> dict[str, Any]:
    """The agent graph's shape, the super-steps this scenario took, and the reasons behind its differences."""
    _check(mode)
    scratch = run.scratch
    world = FixtureWorld(scratch, [], may_kill=False)
    saver = checkpointer(scratch)
    glue = ContractMiddleware(_contract(run.scenario, scratch, world, lambda e: None)) if mode == "contract" else None
    agent = build_agent(run.scenario, world, scratch, saver, glue)
    graph = agent.get_graph()
    edges = [e for e in graph.edges if not e.conditional]
    conditional = [e for e in graph.edges if e.conditional]
    history = list(agent.get_state_history({"configurable": {"thread_id": run.scenario.session_id}}))
    updates: dict[str, int] = {}
    for step in run.steps:
        for e in step.trace:
            if e["kind"] == "node":
                updates[e["node"]] = updates.get(e["node"], 0) + 1
    return {
        "graph": {
            "nodes": sorted(graph.nodes),
            "edges": sorted([e.source, e.target] for e in edges),
            "conditional_edges": sorted([e.source, e.target] for e in conditional),
            "super_steps": len(history),  # LangGraph saves one checkpoint per super-step (and one for the input)
            "node_updates": dict(sorted(updates.items())),
            "mermaid": graph.draw_mermaid(),
        },
        "checkpoint": _final_state(history),
        "explanations": explanations(run, mode, invalid_call_ids(run)),
    }


def _final_state(history: list[Any]) -> dict[str, Any] | None:
    if not history:
        return None
    latest = history[0]
    return {"next": list(latest.next), "messages": len(latest.values.get("messages", [])), "interrupts": len(latest.interrupts)}


def _check(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"{COLUMN} runs in modes {MODES}, not {mode!r}")
