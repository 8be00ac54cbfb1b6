"""One scenario session on the compiled LangGraph graph: driver steps become graph calls.

The session id is the graph's ``thread_id``; state lives only in the SQLite checkpointer
file (and, in contract mode, the glue's records), so every worker starts from disk.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sqlite3
from collections.abc import Awaitable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, StateSnapshot

from adapters import checkpoint_schedule
from adapters.column import MaybeAwaitable, SessionContext
from adapters.glue_blocks import Contract
from adapters.langchain_tools import SessionUser, fixture_tools
from adapters.scripted_chat_model import ScriptedChatModel
from adapters.wire_chat_openai import wire_model
from handwritten.canonical import args_hash
from handwritten.tools import RiskClass
from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.protocol import Decision, PendingCall, StepOutcome
from harness.column_side.scripted_model import ScriptedModel
from harness.fixture_tools import FIXTURE_TOOLS
from harness.records import RunStatus
from harness.scenarios import Scenario

from . import glue
from .graph import agent_graph, open_calls


def _high_risk(names: list[str]) -> set[str]:
    """The tools the approval node asks about in defaults: LangGraph's docs leave that choice to the graph's author."""
    return {n for n in names if FIXTURE_TOOLS[n].risk is RiskClass.HIGH_RISK}


def build(
    scenario: Scenario, scratch: Path, world: FixtureWorld | None, contract: Contract | None, mode: str = "", model_url: str | None = None,
    served: list[BaseTool] | None = None,
) -> StateGraph[MessagesState, SessionUser, MessagesState, MessagesState]:
    """The scenario's graph, not yet compiled (``world`` None: for drawing only, no tool is ever called); with
    ``model_url`` (wire mode) its model is LangChain's ``ChatOpenAI`` on the runner's scripted server; with ``served``
    (mcp mode) its tools are those the MCP client gave, in place of the fixture tools."""
    scripted = ScriptedModel.of(scenario, scratch, world.faults if world else None)  # type: ignore[arg-type]
    model = wire_model(model_url) if model_url else ScriptedChatModel(scripted=scripted)
    tools = served if served is not None else fixture_tools(world, list(scenario.tools))
    if contract is None and mode != "contract":
        risky = _high_risk(list(scenario.tools))
        return agent_graph(model, tools, lambda call: call["name"] in risky, scenario.system_prompt)
    # contract glue: start
    if contract is None:  # drawn only: the contract graph's shape
        return agent_graph(model, tools, bool, scenario.system_prompt, next_turn=str)
    return agent_graph(model, tools, glue.asks(contract), scenario.system_prompt, glue.ToolGuard(contract), glue.next_turn(contract))
    # contract glue: end


def open_session(context: SessionContext) -> LangGraphSession | Awaitable[LangGraphSession]:
    if context.mode == "mcp":
        return open_mcp_session(context)
    connection = sqlite3.connect(str(context.scratch / "langgraph.sqlite"), check_same_thread=False)  # async writes use a thread
    saver = checkpoint_schedule.checkpointer(connection, context.request.schedule, context.world.faults, context.scenario)  # a schedule pins the async write
    context.world.know_dispatch(checkpoint_schedule.dispatched_calls, checkpoint_schedule.siblings_committed)  # ... orders a kill's siblings among the calls dispatched
    callbacks = checkpoint_schedule.order_batches(context.world, context.scenario, context.request.schedule)  # a batch's calls: one order
    graph = build(context.scenario, context.scratch, context.world, context.contract, model_url=context.request.model_url).compile(checkpointer=saver)
    return LangGraphSession(context, graph, connection, callbacks)


async def open_mcp_session(context: SessionContext) -> LangGraphSession:
    """The mcp mode's session: the defaults graph with the MCP client's tools (``mcp.py``), run through LangGraph's
    asynchronous stream, the only way those tools run. The thread's checkpoints are the same SQLite file in the same
    format: the run reads them through ``AsyncSqliteSaver``, LangGraph's asynchronous SQLite checkpointer, and writes
    them through ``WritesAtHandOver``; the session reads the thread between runs through ``SqliteSaver``
    (``get_state``), as in defaults. The fixture world runs no tool in this process, so no batch order is attached."""
    from adapters.mcp_endpoint import endpoint

    from .mcp import mcp_tools

    tools = await mcp_tools(endpoint(context.scenario.id, context.request), context.trace.emit)
    path = str(context.scratch / "langgraph.sqlite")
    connection = sqlite3.connect(path, check_same_thread=False)
    writer = await aiosqlite.connect(path)
    builder = build(context.scenario, context.scratch, context.world, None, "mcp", context.request.model_url, tools)
    graph = builder.compile(checkpointer=SqliteSaver(connection))
    running = builder.compile(checkpointer=WritesAtHandOver(writer, SqliteSaver(connection)))
    context.world.faults.on_kill(lambda call_id: _handed_over_writes_landed())
    return LangGraphSession(context, graph, connection, running=running, writer=writer)


class WritesAtHandOver(AsyncSqliteSaver):
    """LangGraph's ``AsyncSqliteSaver`` whose writes land when LangGraph's loop hands them over, through ``SqliteSaver``
    on the same file (the same tables, the same rows), in the event loop's thread.

    ``AsyncSqliteSaver`` writes on aiosqlite's own thread, so a write LangGraph handed over before a kill may or may
    not be on disk when the process dies: with the scripted model answering in a millisecond, a kill before the
    first model turn sometimes finds no checkpoint at all, and the next step's snapshot has no thread to name. The
    ``defaults`` mode forces each ordering of that race (``adapters/checkpoint_schedule.py``); this mode measures the
    MCP client, so it pins one: every write LangGraph handed over has landed (``write_landed``). LangGraph submits a
    super-step's checkpoint and its tasks' writes as tasks of the run's loop before the next super-step's tasks
    start (``AsyncPregelLoop.put_writes``, ``_put_checkpoint``); a write that completes in its task's first step has
    landed before any of the next tasks awaits its model or its MCP server, so before a kill that answer brings.
    ``_handed_over_writes_landed`` checks that at every kill in this process."""

    def __init__(self, conn: aiosqlite.Connection, inline: SqliteSaver) -> None:
        super().__init__(conn)
        self.inline = inline

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions) -> RunnableConfig:
        return self.inline.put(config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        self.inline.put_writes(config, writes, task_id, task_path)


def _handed_over_writes_landed() -> None:
    """At a kill in this process (a model turn's answer arriving): every write task LangGraph's background executor
    holds, except this super-step's own tasks, has finished (``WritesAtHandOver``). Raises ``ScheduleError`` (the
    step is an error, never a silent other ordering) when one has not."""
    from langgraph.config import get_config

    from adapters.checkpoint_schedule import ScheduleError

    try:
        call = get_config()["configurable"]["__pregel_call"]  # CONFIG_KEY_CALL, as adapters/checkpoint_schedule.py reads it
        executor = call.keywords["submit"]().__self__
        this_tick = call.keywords["futures"]() or {}
        pending = [f for f in list(executor.tasks) if f not in this_tick and not f.done()]
    except (RuntimeError, KeyError, AttributeError, TypeError) as exc:
        raise ScheduleError(f"cannot check the checkpoint writes: LangGraph's background executor is not reachable ({exc!r})") from exc
    if pending:
        raise ScheduleError(f"{len(pending)} checkpoint writes LangGraph handed over had not landed at the kill")


def shape(scenario: Scenario, mode: str) -> dict[str, Any]:
    """Nodes, edges, conditional edges and the Mermaid text of the graph (offline: never the PNG)."""
    drawn = build(scenario, Path("."), None, None, mode).compile().get_graph()
    return {
        "nodes": sorted(drawn.nodes),
        "edges": sorted([e.source, e.target] for e in drawn.edges if not e.conditional),
        "conditional_edges": sorted([e.source, e.target] for e in drawn.edges if e.conditional),
        "mermaid": drawn.draw_mermaid(),
    }


@dataclass
class LangGraphSession:
    """The scenario's thread on a compiled graph (``adapters.column.Session``)."""

    context: SessionContext
    graph: CompiledStateGraph[MessagesState, SessionUser, MessagesState, MessagesState]
    connection: sqlite3.Connection
    callbacks: list[Any] = dataclasses.field(default_factory=list)
    """The harness's callbacks for every run (``checkpoint_schedule.order_batches``): none without a batch to order."""
    running: CompiledStateGraph[MessagesState, SessionUser, MessagesState, MessagesState] | None = None
    """mcp mode: the same graph on ``WritesAtHandOver``, which runs (``astream``); ``graph`` reads the thread."""
    writer: aiosqlite.Connection | None = None
    """mcp mode: the asynchronous checkpointer's connection."""

    def close(self) -> MaybeAwaitable[None]:
        self.connection.close()
        if self.writer is not None:
            return self.writer.close()
        return None

    # -- driver actions --------------------------------------------------------------------

    def deliver(self, text: str) -> MaybeAwaitable[StepOutcome]:
        return self._drive({"messages": [HumanMessage(text)]})

    def decide(self, decisions: list[Decision]) -> MaybeAwaitable[StepOutcome]:
        """Each answer goes to the interrupt that asks about its call, by interrupt id (the docs' resume map)."""
        snapshot = self._state()
        asked = {i.value["call_id"]: i.id for i in snapshot.interrupts if i.value.get("kind") == "approval"}
        answers = {self._interrupt_id(d, asked): _answer(d) for d in decisions if d.call_id in asked}
        self._remember(asked)
        for d in decisions:
            if d.call_id not in asked:  # no interrupt asks about this call: there is no id to pair the answer with
                self.context.trace.emit({"kind": "answer_without_question", "call_id": d.call_id, "approve": d.approve, "interrupts": len(snapshot.interrupts)})
        if answers:
            return self._drive(Command(resume=answers))
        if not snapshot.interrupts:  # the plain Command(resume=value): LangGraph resumes nothing and says nothing
            return self._drive(Command(resume=_answer(decisions[0])))
        return dataclasses.replace(self._report(snapshot), ran=False)

    def _interrupt_id(self, decision: Decision, asked: dict[str, str]) -> str:
        """The interrupt id an answer is keyed by: its call's, or for a misuse the id the misuse names (the interrupt of
        another pending call; the interrupt answered before, kept in ``interrupt_ids.json``)."""
        if decision.misuse not in ("other_call", "reused") or decision.made_for is None:
            return asked[decision.call_id]
        return asked.get(decision.made_for) or self._remembered().get(decision.made_for, asked[decision.call_id])

    def _remembered(self) -> dict[str, str]:
        path = self.context.scratch / "interrupt_ids.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}

    def _remember(self, asked: dict[str, str]) -> None:
        """Keep the ids of the interrupts asked so far, as a caller holding on to old resume keys would."""
        (self.context.scratch / "interrupt_ids.json").write_text(json.dumps({**self._remembered(), **asked}), encoding="utf-8")

    def resume(self) -> MaybeAwaitable[StepOutcome]:
        """Continue the saved state the way LangGraph continues it: ``stream(None, config)``, always.

        LangGraph decides what runs: the tasks of the latest checkpoint's ``next`` (a task whose
        writes were saved is not run again, its writes are applied), an interrupted node again
        (it asks again), or nothing on a finished thread."""
        snapshot = self._state()
        if snapshot.tasks:  # something left to continue (``next`` leaves out a task whose writes were saved): say from where
            self.context.trace.emit({"kind": "resumed", **self._resume_point(snapshot)})
        return self._drive(None)

    # contract glue: start
    def reconcile(self, call_id: str, outcome: str) -> MaybeAwaitable[StepOutcome]:
        asked = next(i.id for i in self._state().interrupts if i.value.get("kind") == "reconcile" and i.value["call_id"] == call_id)
        return self._drive(Command(resume={asked: {"outcome": outcome}}))
    # contract glue: end

    def snapshot(self, path: Path) -> StepOutcome:
        """LangGraph keeps every checkpoint: a snapshot is the id of the latest."""
        snapshot = self._state()
        path.write_text(json.dumps({"checkpoint_id": snapshot.config["configurable"]["checkpoint_id"]}), encoding="utf-8")
        return self._report(snapshot)

    def restore(self, path: Path) -> StepOutcome:
        """Time travel: the next step continues from the saved checkpoint's config."""
        self._pointer().write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
        return self._report()

    # -- running the graph -----------------------------------------------------------------

    def _drive(self, payload: Any) -> MaybeAwaitable[StepOutcome]:
        if self.running is not None:  # mcp mode: the MCP client's tools are coroutines only
            return self._drive_async(self.running, payload)
        durability = None  # LangGraph's default, "async"
        if self.context.contract is not None:
            # contract glue: start
            durability = glue.DURABILITY
            # contract glue: end
        with self._step_bound() as stopped:
            try:
                context = SessionUser(self.context.scenario.user)  # the tools that act for a user read it (ToolRuntime.context)
                config = {**self._config(), "callbacks": self.callbacks} if self.callbacks else self._config()
                for update in self.graph.stream(payload, config, stream_mode="updates", durability=durability, context=context):
                    self._record(update)
            finally:  # the stream has ended (LangGraph waited for its background writes): the held ones land too
                getattr(self.graph.checkpointer, "flush", lambda: None)()  # only a ScheduledSaver holds writes back
        return self._ended(bool(stopped))

    async def _drive_async(self, graph: CompiledStateGraph[MessagesState, SessionUser, MessagesState, MessagesState], payload: Any) -> StepOutcome:
        """``_drive`` in the mcp mode: the same call through ``astream`` (LangGraph's default durability)."""
        with self._step_bound() as stopped:
            async for update in graph.astream(payload, self._config(), stream_mode="updates", context=SessionUser(self.context.scenario.user)):
                self._record(update)
        return self._ended(bool(stopped))

    @contextlib.contextmanager
    def _step_bound(self) -> Iterator[list[bool]]:
        """Around a run of the graph: LangGraph's step bound (``GraphRecursionError``) is a terminal state, not a lost run
        (the list it yields gets an entry then), and after a restore the new checkpoints are the thread's latest."""
        stopped: list[bool] = []
        try:
            yield stopped
        except GraphRecursionError:
            self.context.trace.emit({"kind": "recursion_limit"})
            stopped.append(True)
        finally:
            self._pointer().unlink(missing_ok=True)

    def _ended(self, stopped: bool) -> StepOutcome:
        outcome = self._report()
        return dataclasses.replace(outcome, status="stopped_max_steps", session_status="stopped_max_steps") if stopped else outcome

    def _record(self, update: dict[str, Any]) -> None:
        """One task's update, as LangGraph streams it after the task. A task whose writes were saved in an earlier
        run (an approval answered while others still wait) is streamed again, marked cached: nothing ran now."""
        if (update.get("__metadata__") or {}).get("cached"):
            return
        for node, value in update.items():
            if node == "__interrupt__":
                continue
            self.context.trace.emit({"kind": "super_step", "node": node})
            for message in value.get("messages", []) if isinstance(value, dict) else []:
                if isinstance(message, ToolMessage):
                    status = (message.artifact or {}).get("status") if isinstance(message.artifact, dict) else None
                    status = status or ("ok" if message.status == "success" else "error")
                    content = message.content if isinstance(message.content, str) else message.text  # an MCP result: content blocks
                    self.context.trace.emit({"kind": "tool_result", "call_id": message.tool_call_id, "status": status, "content": content})

    def _state(self) -> StateSnapshot:
        return self.graph.get_state(self._config())

    def _config(self) -> RunnableConfig:
        configurable: dict[str, Any] = {"thread_id": self.context.scenario.session_id}
        if self._pointer().exists():
            configurable["checkpoint_id"] = json.loads(self._pointer().read_text(encoding="utf-8"))["checkpoint_id"]
        return {"configurable": configurable}

    def _pointer(self) -> Path:
        return self.context.scratch / "restore_from.json"

    # -- what the checkpoint says ----------------------------------------------------------

    def outcome(self, snapshot: StateSnapshot | None = None) -> StepOutcome:
        snapshot = snapshot or self._state()
        asked = [i.value for i in snapshot.interrupts]  # LangGraph's own list (0.6 keeps an answered one of a batch)
        if self.context.contract is not None:
            # contract glue: start
            asked = glue.unanswered(snapshot) if not self._pointer().exists() else asked  # a restored one: as it was
            # contract glue: end
        approvals = {v["call_id"] for v in asked if v.get("kind") == "approval"}
        uncertain = next((v["call_id"] for v in asked if v.get("kind") == "reconcile"), None)
        messages = snapshot.values.get("messages", []) if isinstance(snapshot.values, dict) else []
        pending = tuple(PendingCall(c["id"], c["name"], c["args"]) for c in open_calls(messages) if c["id"] in approvals)  # the model's order
        status: RunStatus = "awaiting_approval" if approvals else "reconcile_required" if uncertain else self._run_status(snapshot, messages)
        return StepOutcome(status, status, pending=pending, uncertain_call=uncertain)

    def _report(self, snapshot: StateSnapshot | None = None) -> StepOutcome:
        """The outcome at the end of a step, with LangGraph's own view of it in the trace."""
        snapshot = snapshot or self._state()
        self.context.trace.emit({"kind": "state", "next": list(snapshot.next), "interrupts": [i.value.get("kind") for i in snapshot.interrupts]})
        return self.outcome(snapshot)

    def _run_status(self, snapshot: StateSnapshot, messages: list[Any]) -> RunStatus:
        """The status of a thread with no question pending.

        ``completed`` means LangGraph itself finished the run with a final answer: no task left and
        the last message an ``AIMessage`` without tool calls. A checkpoint with tasks left (in
        ``next``, or finished with their writes saved but no checkpoint after them) is a run that
        died mid-way, which a resume continues: ``crashed``. A thread with no final answer and
        nothing LangGraph will run is a run that was lost (a kill before its first checkpoint
        landed, say): ``crashed`` too, because calling it ``completed`` would hide that it never
        finished; in contract mode, unless the step bound ended it."""
        final = bool(messages) and isinstance(messages[-1], AIMessage) and not messages[-1].tool_calls
        if final and not snapshot.tasks:
            return "completed"
        if self.context.contract is None:
            return "crashed"
        # contract glue: start
        stopped = bool(messages) and not snapshot.tasks and glue.turns(self.context.contract, messages) == 0
        return "stopped_max_steps" if stopped else "crashed"
        # contract glue: end

    def _resume_point(self, snapshot: StateSnapshot) -> dict[str, Any]:
        """Where LangGraph continues from this checkpoint: ``next``, its interrupts, the calls still unanswered."""
        calls = open_calls(snapshot.values.get("messages", []))
        asked = [i.value for i in snapshot.interrupts]
        call, approved, position = None, [], "model_turn"
        if any(v.get("kind") == "approval" for v in asked) or "approval" in snapshot.next:
            position = "awaiting_approval"  # the approval tasks run again and ask
        elif reconcile := next((v for v in asked if v.get("kind") == "reconcile"), None):
            call, position = next(c for c in calls if c["id"] == reconcile["call_id"]), "reconcile"
        elif {"tools", "dispatch"} & set(snapshot.next) and calls:
            call, position = calls[0], "before_execute"  # LangGraph runs the turn's tools task again: it cannot tell more
            approved = sorted(c["id"] for c in calls if FIXTURE_TOOLS[c["name"]].risk is RiskClass.HIGH_RISK)
            if self.context.contract is not None:
                # contract glue: start
                call, position = glue.resumed(self.context.contract, calls)
                # contract glue: end
        pending = {"call_id": call["id"], "tool": call["name"], "args_hash": args_hash(call["args"])} if call else None
        return {"position": position, "pending_call": pending, "approved_call_ids": approved, "next": list(snapshot.next)}


def _answer(decision: Decision) -> dict[str, Any]:
    return {"approve": decision.approve, "reason": decision.reason or "not approved"}
