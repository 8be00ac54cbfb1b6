"""One scenario session on the compiled LangGraph graph: driver steps become graph calls.

The session id is the graph's ``thread_id``; state lives only in the SQLite checkpointer
file (and, in contract mode, the glue's records), so every worker starts from disk.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.errors import GraphRecursionError
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, StateSnapshot

from adapters import checkpoint_schedule
from adapters.langchain_tools import fixture_tools
from adapters.scripted_chat_model import ScriptedChatModel
from handwritten.approvals import ApprovalAuthority
from handwritten.canonical import args_hash
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import RiskClass
from harness.approver import APPROVAL_SECRET
from harness.driver import trace_path
from harness.scenarios import Scenario
from harness.scripted_model import ScriptedModel
from harness.world import FIXTURE_TOOLS, FixtureWorld

from . import glue
from .graph import DocsGate, agent_graph
from .trace import Trace

UNSUPPORTED = "not supported by langgraph"
RESUME = "__resume__"  # the channel of a saved interrupt answer (langgraph._internal._constants, private, so named here)
NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"  # the task id LangGraph saves a Command's answer under


def _high_risk(scenario: Scenario) -> set[str]:
    """The tools the approval node asks about: LangGraph's docs leave that choice to the graph's author."""
    return {n for n in scenario.tools if FIXTURE_TOOLS[n].risk is RiskClass.HIGH_RISK}


def _model(scenario: Scenario, scratch: Path, world: FixtureWorld | None) -> ScriptedChatModel:
    scripted = ScriptedModel(
        scenario.model_script,
        user_inputs=scenario.user_inputs,
        system_prompt=scenario.system_prompt,
        log_path=scratch / "model_log.jsonl",
        faults=world.faults if world else None,  # type: ignore[arg-type]
    )
    return ScriptedChatModel(scripted=scripted)


def shape(scenario: Scenario, mode: str) -> dict[str, Any]:
    """Nodes, edges, conditional edges and the Mermaid text of the graph (offline: never the PNG)."""
    world = None  # the tools are never called here
    built = agent_graph(_model(scenario, Path("."), world), fixture_tools(world, list(scenario.tools)), _high_risk(scenario), DocsGate(), None, scenario.system_prompt)  # type: ignore[arg-type]
    drawn = built.compile().get_graph()
    return {
        "nodes": sorted(drawn.nodes),
        "edges": sorted([e.source, e.target] for e in drawn.edges if not e.conditional),
        "conditional_edges": sorted([e.source, e.target] for e in drawn.edges if e.conditional),
        "mermaid": drawn.draw_mermaid(),
    }


@dataclass
class Session:
    """The scenario's thread on a compiled graph, with what the driver steps need around it."""

    scenario: Scenario
    scratch: Path
    mode: str
    graph: CompiledStateGraph
    connection: sqlite3.Connection
    trace: Trace
    store: SqliteIdempotencyStore | None  # the contract glue's records; None in defaults

    @staticmethod
    def open(scenario: Scenario, scratch: Path, request: dict[str, Any], mode: str, world: FixtureWorld) -> "Session":
        trace = Trace(trace_path(scratch), request["index"])
        connection = sqlite3.connect(str(scratch / "langgraph.sqlite"), check_same_thread=False)  # async writes use a thread
        store, gate, guard = None, DocsGate(), None
        # contract glue: start
        if mode == "contract":
            store = SqliteIdempotencyStore(str(scratch / "glue.sqlite"))
            checks = glue.validators(list(scenario.tools))
            authority = ApprovalAuthority(APPROVAL_SECRET, clock=lambda: request["now"], new_token_id=_no_issuing)
            gate = glue.ContractGate(scenario.session_id, checks, authority, store)
            guard = glue.ToolGuard(scenario.session_id, checks, store, world, trace)
        # contract glue: end
        tools = fixture_tools(world, list(scenario.tools))
        built = agent_graph(_model(scenario, scratch, world), tools, _high_risk(scenario), gate, trace, scenario.system_prompt, guard)
        saver = checkpoint_schedule.checkpointer(connection, request.get("schedule"), world.faults)  # a schedule pins the async write
        world.know_dispatch(checkpoint_schedule.dispatched_calls)  # ... and orders a kill's siblings among the calls dispatched
        graph = built.compile(checkpointer=saver)
        return Session(scenario, scratch, mode, graph, connection, trace, store)

    def close(self) -> None:
        self.trace.close()
        self.connection.close()
        if self.store is not None:
            self.store.close()

    # -- driver actions --------------------------------------------------------------------

    def act(self, request: dict[str, Any]) -> dict[str, Any]:
        step = request["step"]
        match step["action"]:
            case "run" | "deliver_again":
                event = request["event"]
                # contract glue: start
                if self.store is not None and not glue.first_delivery(self.store, self.scenario.session_id, event["event_id"]):
                    self.trace.emit({"kind": "duplicate_event", "event_id": event["event_id"]})
                    return self._outcome(refusal="duplicate_event")
                # contract glue: end
                return self._drive({"messages": [HumanMessage(event["input"])]})
            case "approve" | "misuse_token":  # defaults has no token concept: the answer carries it unread
                return self._answer({"action": "approve", "call_id": step["call_id"], "token": request["token"]})
            case "reject":
                return self._answer({"action": "reject", "call_id": step["call_id"], "reason": step.get("reason", "not approved")})
            case "reconcile":
                if self.store is None:
                    return self._outcome(refusal=UNSUPPORTED)
                return self._answer({"action": "reconcile", "call_id": step["call_id"], "outcome": step["outcome"]})
            case "resume":
                return self._resume()
            case "snapshot":  # LangGraph keeps every checkpoint: a snapshot is the id of the latest
                snapshot = self.graph.get_state(self._config())
                self._snapshots().mkdir(exist_ok=True)
                (self._snapshots() / f"{step['name']}.json").write_text(json.dumps({"checkpoint_id": _checkpoint_id(snapshot)}), encoding="utf-8")
                return self._outcome(snapshot)
            case "restore":  # time travel: the next step continues from the saved checkpoint's config
                saved = json.loads((self._snapshots() / f"{step['name']}.json").read_text(encoding="utf-8"))
                self._pointer().write_text(json.dumps(saved), encoding="utf-8")
                return self._outcome(self.graph.get_state(self._config()))
            case other:
                raise ValueError(f"unknown driver action {other!r}")

    def _answer(self, answer: dict[str, Any]) -> dict[str, Any]:
        snapshot = self.graph.get_state(self._config())
        # contract glue: start
        kind = "reconcile" if answer["action"] == "reconcile" else "approval"
        asked = [i.value for i in snapshot.interrupts if i.value.get("kind") == kind]
        if self.store is not None and (not asked or (kind == "reconcile" and asked[0]["call_id"] != answer["call_id"])):
            reason = glue.unexpected(answer["action"], answer["call_id"])
            self.trace.emit({"kind": "approval_refused" if kind == "approval" else "reconcile_refused", "call_id": answer["call_id"], "reason": reason})
            return self._outcome(snapshot, refusal=reason)
        # contract glue: end
        if not snapshot.interrupts:  # LangGraph resumes nothing and says nothing: recorded for the explanations
            self.trace.emit({"kind": "answer_without_question", "action": answer["action"]})
        outcome = self._drive(Command(resume={**answer, "driver_step": self.trace.driver_step}))
        refused = outcome.pop("refused", None)  # the approval node asked again, saying why
        return {**outcome, "status": "refused", "refusal": refused} if refused else outcome

    def _resume(self) -> dict[str, Any]:
        """Continue the saved state the way LangGraph continues it: ``stream(None, config)``, always.

        LangGraph decides what runs: the tasks of the latest checkpoint's ``next`` (a task whose
        writes were saved is not run again, its writes are applied), an interrupted node again
        (it asks again, or takes an answer saved before the kill), or nothing on a finished
        thread. The session never decides on its own that nothing needs to run."""
        snapshot = self.graph.get_state(self._config())
        if snapshot.tasks:  # something left to continue (``next`` leaves out a task whose writes were saved): say from where
            self.trace.emit({"kind": "resumed", **self._resume_point(snapshot)})
        return self._drive(None)

    # -- running the graph -----------------------------------------------------------------

    def _drive(self, payload: Any) -> dict[str, Any]:
        options: dict[str, Any] = {}
        # contract glue: start
        if self.store is not None:
            options = {"durability": glue.DURABILITY}
        # contract glue: end
        try:
            try:
                for update in self.graph.stream(payload, self._config(), stream_mode="updates", **options):
                    self._record(update)
            finally:  # the stream has ended (LangGraph waited for its background writes): the held ones land too
                _land_held_writes(self.graph)
        except GraphRecursionError:  # LangGraph's step bound: a terminal state, not a lost run
            self.trace.emit({"kind": "recursion_limit"})
            return self._outcome(status="stopped_max_steps")
        finally:
            self._pointer().unlink(missing_ok=True)  # after a restore the new checkpoints are the thread's latest
        return self._outcome(with_refusal=True)

    def _record(self, update: dict[str, Any]) -> None:
        """One super-step's node updates, as LangGraph streams them after the step."""
        for node, value in update.items():
            if node == "__interrupt__":
                continue
            self.trace.emit({"kind": "super_step", "node": node})
            for message in (value or {}).get("messages", []) if isinstance(value, dict) else []:
                if isinstance(message, ToolMessage):
                    status = (message.artifact or {}).get("status") if isinstance(message.artifact, dict) else None
                    status = status or ("ok" if message.status == "success" else "error")
                    self.trace.emit({"kind": "tool_result", "call_id": message.tool_call_id, "status": status, "content": message.content})

    def _config(self) -> dict[str, Any]:
        configurable: dict[str, Any] = {"thread_id": self.scenario.session_id}
        if self._pointer().exists():
            configurable["checkpoint_id"] = json.loads(self._pointer().read_text(encoding="utf-8"))["checkpoint_id"]
        config: dict[str, Any] = {"configurable": configurable}
        # contract glue: start
        if self.store is not None:
            config["recursion_limit"] = glue.recursion_limit(self.scenario.max_steps)
        # contract glue: end
        return config

    def _snapshots(self) -> Path:
        return self.scratch / "snapshots"

    def _pointer(self) -> Path:
        return self.scratch / "restore_from.json"

    # -- what the checkpoint says ----------------------------------------------------------

    def _outcome(self, snapshot: StateSnapshot | None = None, *, refusal: str | None = None, status: str | None = None, with_refusal: bool = False) -> dict[str, Any]:
        snapshot = snapshot or self.graph.get_state(self._config())
        asked = [i.value for i in snapshot.interrupts]
        approval = next((v for v in asked if v.get("kind") == "approval"), None)
        if approval is not None:
            session_status = "awaiting_approval"
        elif any(v.get("kind") == "reconcile" for v in asked):
            session_status = "reconcile_required"
        else:
            session_status = status or _run_status(snapshot)
        self.trace.emit({"kind": "state", "next": list(snapshot.next), "interrupts": [v.get("kind") for v in asked]})
        if approval is not None:
            self.trace.emit({"kind": "paused", "validated": approval["validated"]})
        outcome = {
            "status": "refused" if refusal else session_status,
            "session_status": session_status,
            "refusal": refusal,
            "pending": approval["pending"] if approval else [],
        }
        if with_refusal and approval is not None and approval.get("refused"):
            outcome["refused"] = approval["refused"]
        return outcome

    def _resume_point(self, snapshot: StateSnapshot) -> dict[str, Any]:
        """Where LangGraph continues from this checkpoint: ``next``, its interrupts, the calls still unanswered."""
        messages = snapshot.values.get("messages", [])
        ai_index = max((i for i, m in enumerate(messages) if isinstance(m, AIMessage)), default=None)
        answered = {m.tool_call_id for m in messages[(ai_index or 0) :] if isinstance(m, ToolMessage)}
        open_calls = [c for c in (messages[ai_index].tool_calls if ai_index is not None else []) if c["id"] not in answered]
        saved_answer = self._answer_saved(snapshot)  # the interrupted node takes it: nothing is asked again
        asked = [] if saved_answer else [i.value for i in snapshot.interrupts]
        call, approved, position = None, [], "model_turn"
        if any(v.get("kind") == "approval" for v in asked) or ("approval" in snapshot.next and not saved_answer):
            position = "awaiting_approval"  # the approval node runs again and asks
        elif reconcile := next((v for v in asked if v.get("kind") == "reconcile"), None):
            call, position = next(c for c in open_calls if c["id"] == reconcile["call_id"]), "reconcile"
        elif ("tools" in snapshot.next or saved_answer) and open_calls:
            call, position = open_calls[0], "before_execute"  # LangGraph re-runs the tools node: it cannot tell more
            approved = sorted(c["id"] for c in open_calls if FIXTURE_TOOLS[c["name"]].risk is RiskClass.HIGH_RISK)
            # contract glue: start
            if self.store is not None:
                call = glue.resumed_call(self.store, self.scenario.session_id, open_calls)
                position = glue.position(self.store, self.scenario.session_id, call)
            # contract glue: end
        pending = {"call_id": call["id"], "tool": call["name"], "args_hash": args_hash(call["args"])} if call else None
        return {"position": position, "pending_call": pending, "approved_call_ids": approved, "next": list(snapshot.next)}

    def _answer_saved(self, snapshot: StateSnapshot) -> bool:
        """Whether a ``Command(resume=...)`` answer is saved on the checkpoint (a kill came before the next one):
        ``get_state`` still lists the interrupt, but ``stream(None)`` hands the saved answer to the node."""
        saved = self.graph.checkpointer.get_tuple(snapshot.config)
        return saved is not None and any(w[0] == NULL_TASK_ID and w[1] == RESUME for w in saved.pending_writes or ())


def _run_status(snapshot: StateSnapshot) -> str:
    """The status of a thread with no question pending.

    ``completed`` means LangGraph itself finished the run with a final answer: no task left and
    the last message an ``AIMessage`` without tool calls. A checkpoint with tasks left (in
    ``next``, or finished with their writes saved but no checkpoint after them) is a run that
    died mid-way, which a resume continues: ``crashed``. A thread with no final answer and
    nothing LangGraph will run is a run that was lost (a kill before its first checkpoint
    landed, say): ``crashed`` too, the closed set's status for a run a kill ended, because
    calling it ``completed`` would hide that the run never finished."""
    messages = snapshot.values.get("messages", []) if isinstance(snapshot.values, dict) else []
    final = bool(messages) and isinstance(messages[-1], AIMessage) and not messages[-1].tool_calls
    return "completed" if final and not snapshot.tasks else "crashed"


def _land_held_writes(graph: CompiledStateGraph) -> None:
    flush = getattr(graph.checkpointer, "flush", None)  # only a ScheduledSaver holds writes back
    if flush is not None:
        flush()


def _checkpoint_id(snapshot: StateSnapshot) -> str:
    return snapshot.config["configurable"]["checkpoint_id"]


def _no_issuing() -> str:
    raise RuntimeError("the glue verifies approval tokens; only the human approver issues them")
