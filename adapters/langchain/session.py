"""One session of the agent, as the driver's steps drive it; the session id is the LangGraph ``thread_id``.

Every step streams the agent (``stream_mode=["updates", "checkpoints"]``: each node's
update as it finishes, and where each super-step starts) and writes what it saw to the
trace (nodes, tool results), then reads the outcome from the checkpointer with
``get_state``: an approval interrupt is ``awaiting_approval`` (its action requests, in
order, are the pending calls). ``completed`` means LangGraph itself finished the run: no
task left, no interrupt, and the last message an ``AIMessage`` without tool calls (the
final answer). A saved state with tasks left (a run that died mid-way; a resume continues
it) is ``crashed``, and so is a thread with no final answer and nothing LangGraph will
run: that run was lost (say, killed before its first checkpoint landed), and ``crashed``
is the closed set's status for a run a kill ended; ``completed`` would hide it. A
snapshot remembers the latest checkpoint id; a restore makes the next step continue from
that checkpoint (LangGraph time travel: the run forks from it).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.types import Command

from adapters.column import MaybeAwaitable
from handwritten.canonical import args_hash
from harness.column_side.approver import edited_args
from harness.column_side.protocol import Decision, PendingCall, StepOutcome
from harness.records import RunStatus

from .calls import pending_calls, tool_messages, unanswered

# contract glue: start
if TYPE_CHECKING:
    from adapters.glue_blocks import Contract
# contract glue: end

Emit = Callable[[dict[str, Any]], None]
HITL_NODE = "HumanInTheLoopMiddleware.after_model"
STREAM_MODE = ["updates", "checkpoints"]
RESUME = "__resume__"  # the channel of a saved interrupt answer (private in LangGraph 1.x, so named here)
_STATUS = {"success": "ok", "error": "error"}


class AgentSession:
    """The thread ``session_id`` of a compiled ``create_agent`` graph. ``head`` holds a restored checkpoint id;
    ``options`` are extra ``stream`` options; ``contract`` is the glue's state in ``contract`` mode (else None);
    ``callbacks`` the harness's for every run (``checkpoint_schedule.order_batches``: none without a batch to order)."""

    def __init__(
        self, agent: Any, session_id: str, gated: list[str], emit: Emit, head: Path, options: dict[str, Any], contract: Contract | None,
        callbacks: list[Any] | None = None, asynchronous: bool = False, release: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.agent = agent
        self.asynchronous = asynchronous  # mcp: the client's tools are coroutines only, so every run is ``astream``
        self.release = release  # mcp: closes the MCP client at the step's end (``mcp.close_adapter``)
        self.gated = set(gated)  # the tools the human reviews
        self.session_id = session_id
        self.emit = emit
        self.head = head
        self.options = options
        self.contract = contract
        self.callbacks = callbacks or []

    @property
    def config(self) -> dict[str, Any]:
        configurable = {"thread_id": self.session_id}
        if self.head.exists():  # a restored snapshot: continue from that checkpoint, not the latest
            configurable["checkpoint_id"] = json.loads(self.head.read_text(encoding="utf-8"))["checkpoint_id"]
        return {"configurable": configurable}

    def state(self) -> Any:
        return self.agent.get_state(self.config)

    def run(self, payload: Any) -> StepOutcome:
        """Stream the agent from ``payload`` (input, ``Command`` or None) and report where it stopped."""
        tools: list[ToolMessage] = []  # a super-step's tool tasks finish in any order: reported sorted by call id
        try:
            for mode, update in self.agent.stream(payload, self._run_config(), stream_mode=STREAM_MODE, **self.options):
                tools = self._streamed(mode, update, tools)
        finally:
            self._flush()
        return self._ended(tools)

    async def arun(self, payload: Any) -> StepOutcome:
        """``run`` through ``astream``: the ``mcp`` mode's, whose tools LangChain can only await."""
        tools: list[ToolMessage] = []
        try:
            async for mode, update in self.agent.astream(payload, self._run_config(), stream_mode=STREAM_MODE, **self.options):
                tools = self._streamed(mode, update, tools)
        finally:
            self._flush()
        return self._ended(tools)

    def _go(self, payload: Any) -> MaybeAwaitable[StepOutcome]:
        return self.arun(payload) if self.asynchronous else self.run(payload)

    def _run_config(self) -> dict[str, Any]:
        return {**self.config, "callbacks": self.callbacks} if self.callbacks else self.config

    def _streamed(self, mode: str, update: Any, tools: list[ToolMessage]) -> list[ToolMessage]:
        """One streamed part; returns the tool results not yet reported.

        "checkpoints" marks where each super-step starts (streamed before its tasks run): the tool results
        of the step before are reported there, so a kill in the next step cannot lose what was streamed."""
        if mode == "checkpoints":
            self._report(tools)
            return []
        for node, values in update.items():
            if node.startswith("__"):  # __interrupt__, __metadata__: not a node
                continue
            if node == "tools":
                tools = tools + tool_messages(values)
                continue
            self._report(tools)
            tools = []
            self.emit({"kind": "node", "node": node})
            self._results(tool_messages(values))
        return tools

    def _flush(self) -> None:
        """The stream has ended (LangGraph waited for its background writes): the held ones land too."""
        flush = getattr(self.agent.checkpointer, "flush", None)  # only a ScheduledSaver holds writes back
        if flush is not None:
            flush()

    def _ended(self, tools: list[ToolMessage]) -> StepOutcome:
        self._report(tools)
        self.head.unlink(missing_ok=True)  # the run's newest checkpoint is the head now
        return self.outcome()

    def _report(self, messages: list[ToolMessage]) -> None:
        if messages:
            self.emit({"kind": "node", "node": "tools", "tasks": len(messages)})
            self._results(sorted(messages, key=lambda m: m.tool_call_id))

    def _results(self, messages: list[ToolMessage]) -> None:
        for message in messages:
            status = (message.artifact or {}).get("status") if isinstance(message.artifact, dict) else None
            content = message.content if isinstance(message.content, str) else json.dumps(_without_minted_ids(message.content))
            self.emit({"kind": "tool_result", "call_id": message.tool_call_id, "status": status or _STATUS[message.status], "content": content})

    def deliver(self, text: str) -> MaybeAwaitable[StepOutcome]:
        return self._go({"messages": [{"role": "user", "content": text}]})

    def decide(self, decisions: list[Decision]) -> MaybeAwaitable[StepOutcome]:
        """Answer the approval interrupt the way the docs teach: one decision per reviewed call, in the order of
        the interrupt's action requests (HITL matches them by position). A decision on a call that is not
        pending goes in as given: LangGraph, not the adapter, says what becomes of it."""
        pending = {p.call_id: p for p in self.outcome().pending}
        order = list(pending)
        ranked = sorted(decisions, key=lambda d: order.index(d.call_id) if d.call_id in order else len(order))
        return self._go(Command(resume={"decisions": [_answer(d, pending.get(d.call_id)) for d in ranked]}))

    def resume(self) -> MaybeAwaitable[StepOutcome]:
        """Continue the saved state the way LangGraph continues it, always: ``stream(None)`` from the latest
        checkpoint (the head after a restore), saying from where. LangGraph decides what runs (the tasks of
        ``next``, an interrupted node with the answer saved before a kill, or nothing on a finished thread)."""
        state = self.state()
        if state.tasks:  # a finished thread has nothing left to run
            self.emit({"kind": "resumed", **self.position(state)})
        return self._go(None)

    # contract glue: start
    def reconcile(self, call_id: str, outcome: str) -> StepOutcome:
        """Answer the glue's reconcile interrupt (the base checked that it asks about ``call_id``)."""
        return self.run(Command(resume={"outcome": outcome}))
    # contract glue: end

    def position(self, state: Any) -> dict[str, Any]:
        """Where a resume continues, read from the checkpoint (and, in contract mode, the glue's records).

        ``state.next`` is not enough: a task that finished before the kill (its writes saved,
        its successor checkpoint lost) is left out of ``next`` though the run goes on."""
        calls = unanswered(state.values.get("messages", []))
        asked = [i.value for i in state.interrupts]
        # An answer saved as a pending write (the kill came before the next checkpoint) is replayed on resume.
        answered = any(w[1] == RESUME for w in self.agent.checkpointer.get_tuple(state.config).pending_writes)
        asked = [] if answered else asked
        if not calls and not asked:
            return {"position": "model_turn", "pending_call": None, "approved_call_ids": []}
        reviewed = answered or any(t.name == "tools" or (t.name == HITL_NODE and t.result is not None) for t in state.tasks)
        approved = [c["id"] for c in calls if c["name"] in self.gated] if reviewed and not asked else []
        position = "awaiting_approval" if asked else "before_execute"
        call = calls[0] if calls else None
        if self.contract is not None:
            # contract glue: start
            from adapters.glue_blocks import resume_position  # the glue is imported in contract mode only

            from .glue import intended_call

            call = intended_call(self.contract, calls) if calls else None
            if any(a.get("kind") == "reconcile" for a in asked):
                position = "reconcile"
            elif position == "before_execute" and call is not None:
                position = resume_position(self.contract, call["id"], position)
            # contract glue: end
        pending = {"call_id": call["id"], "tool": call["name"], "args_hash": args_hash(call["args"])} if call else None
        return {"position": position, "pending_call": pending, "approved_call_ids": sorted(approved)}

    def snapshot(self, path: Path) -> StepOutcome:
        """Remember the latest checkpoint's id: LangGraph keeps every checkpoint of the thread."""
        path.write_text(json.dumps({"checkpoint_id": self.state().config["configurable"]["checkpoint_id"]}), encoding="utf-8")
        return self.outcome()

    def restore(self, path: Path) -> StepOutcome:
        """Deliver the saved state again: the next step continues from the snapshot's checkpoint."""
        self.head.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
        return self.outcome()

    def outcome(self) -> StepOutcome:
        state = self.state()
        messages = state.values.get("messages", [])
        asked = [i.value for i in state.interrupts]
        if self.contract is not None and any(a.get("kind") == "reconcile" for a in asked):
            # contract glue: start
            uncertain = next(a["call_id"] for a in asked if a.get("kind") == "reconcile")
            return StepOutcome("reconcile_required", "reconcile_required", uncertain_call=uncertain)
            # contract glue: end
        if asked:
            return StepOutcome("awaiting_approval", "awaiting_approval", pending=pending_calls(asked, messages))
        status: RunStatus = "completed"
        if state.tasks:  # a saved state that was interrupted mid-run: reporting it as done would hide that
            status = "crashed"
        elif not (messages and isinstance(messages[-1], AIMessage) and not messages[-1].tool_calls):
            status = "crashed"  # no final answer and nothing LangGraph will run: the run was lost, not completed
        elif self.contract is not None:
            # contract glue: start
            from .glue import stopped_by_bound

            status = "stopped_max_steps" if stopped_by_bound(messages[-1]) else status
            # contract glue: end
        return StepOutcome(status, status)

    def close(self) -> MaybeAwaitable[None]:
        self.agent.checkpointer.conn.close()
        return self.release() if self.release is not None else None


def _answer(decision: Decision, pending: PendingCall | None) -> dict[str, Any]:
    """A HITL decision: approve, reject with its message, or, for an approval of other arguments, the documented
    ``edit`` decision whose ``edited_action`` carries them (the only decision that names arguments)."""
    if not decision.approve:
        return {"type": "reject", "message": decision.reason}
    if decision.misuse == "other_args" and pending is not None:
        return {"type": "edit", "edited_action": {"name": pending.tool, "args": edited_args(pending.args)}}
    return {"type": "approve"}


def _without_minted_ids(blocks: list[Any]) -> list[Any]:
    """An MCP result's content blocks without the ``id`` LangChain core mints for each (``lc_`` and a random uuid4):
    a new one every run, which neither the server nor the model chose."""
    return [{k: v for k, v in b.items() if not (k == "id" and str(v).startswith("lc_"))} if isinstance(b, dict) else b for b in blocks]

