"""One session of the agent, as the driver's steps drive it; the session id is the LangGraph ``thread_id``.

Every step streams the agent (``stream_mode=["updates", "checkpoints"]``: each node's
update as it finishes, and where each super-step starts) and writes what it saw to the
trace (nodes, tool results), then reads the
outcome from the checkpointer with ``get_state``: an approval interrupt is
``awaiting_approval``, the glue's reconcile interrupt is ``reconcile_required``,
LangChain's model-call limit message is ``stopped_max_steps``. ``completed`` means
LangGraph itself finished the run: no task left, no interrupt, and the last message an
``AIMessage`` without tool calls (the final answer). A saved state with tasks left (a run
that died mid-way; a resume continues it) is ``crashed``, and so is a thread with no final
answer and nothing LangGraph will run: that run was lost (say, killed before its first
checkpoint landed), and ``crashed`` is the closed set's status for a run a kill ended;
``completed`` would hide it. A snapshot remembers the latest checkpoint id; a restore makes the next
step continue from that checkpoint (LangGraph time travel: the run forks from it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph.types import Command

from handwritten.canonical import args_hash
from handwritten.idempotency import RecordState

from .glue import Contract, unanswered

Emit = Callable[[dict[str, Any]], None]
HITL_NODE = "HumanInTheLoopMiddleware.after_model"
RESUME = "__resume__"  # the channel of a saved interrupt answer (private in LangGraph 1.x, so named here)
LIMIT_PREFIX = "Model call limits exceeded"  # the text of ModelCallLimitMiddleware's closing message


@dataclass(frozen=True)
class Outcome:
    """What a step ended with: the session's status, or ``refused`` with the reason; the calls awaiting approval."""

    status: str
    session_status: str
    refusal: str | None
    pending: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "session_status": self.session_status, "refusal": self.refusal, "pending": self.pending}


class AgentSession:
    """The thread ``session_id`` of a compiled ``create_agent`` graph; ``head`` holds a restored checkpoint id;
    ``contract`` is the glue's state in ``contract`` mode (None in ``defaults``)."""

    def __init__(self, agent: Any, session_id: str, gated: list[str], emit: Emit, head: Path, contract: Contract | None = None) -> None:
        self.agent = agent
        self.gated = set(gated)  # the tools the human reviews
        self.session_id = session_id
        self.emit = emit
        self.head = head
        self.contract = contract
        self.options: dict[str, Any] = {}
        # contract glue: start
        if contract is not None:  # checkpoint before each next super-step starts, not from a background thread
            self.options["durability"] = "sync"
        # contract glue: end

    @property
    def config(self) -> dict[str, Any]:
        configurable = {"thread_id": self.session_id}
        if self.head.exists():  # a restored snapshot: continue from that checkpoint, not the latest
            configurable["checkpoint_id"] = json.loads(self.head.read_text(encoding="utf-8"))["checkpoint_id"]
        return {"configurable": configurable}

    def state(self) -> Any:
        return self.agent.get_state(self.config)

    def run(self, payload: Any) -> Outcome:
        """Stream the agent from ``payload`` (input, ``Command`` or None) and report where it stopped."""
        tools: list[Any] = []  # a super-step's tool tasks finish in any order: reported sorted by call id
        try:
            # "checkpoints" marks where each super-step starts (streamed before its tasks run): the tool results
            # of the step before are reported there, so a kill in the next step cannot lose what was streamed
            for mode, update in self.agent.stream(payload, self.config, stream_mode=["updates", "checkpoints"], **self.options):
                if mode == "checkpoints":
                    self._report(tools)
                    tools = []
                    continue
                for node, values in update.items():
                    if node.startswith("__"):  # __interrupt__, __metadata__: not a node
                        continue
                    if node == "tools":
                        tools += _tool_messages(values)
                        continue
                    self._report(tools)
                    tools = []
                    self.emit({"kind": "node", "node": node})
                    self._results(_tool_messages(values))
        finally:  # the stream has ended (LangGraph waited for its background writes): the held ones land too
            flush = getattr(self.agent.checkpointer, "flush", None)  # only a ScheduledSaver holds writes back
            if flush is not None:
                flush()
        self._report(tools)
        self.head.unlink(missing_ok=True)  # the run's newest checkpoint is the head now
        return self.outcome()

    def _report(self, tool_messages: list[ToolMessage]) -> None:
        if tool_messages:
            self.emit({"kind": "node", "node": "tools", "tasks": len(tool_messages)})
            self._results(sorted(tool_messages, key=lambda m: m.tool_call_id))

    def _results(self, messages: list[ToolMessage]) -> None:
        for message in messages:
            status = (message.artifact or {}).get("status") if isinstance(message.artifact, dict) else None
            content = message.content if isinstance(message.content, str) else json.dumps(message.content)
            self.emit({"kind": "tool_result", "call_id": message.tool_call_id, "status": status or _STATUS[message.status], "content": content})

    def deliver(self, user_input: str) -> Outcome:
        return self.run({"messages": [{"role": "user", "content": user_input}]})

    def decide(self, call_id: str, decision: dict[str, Any]) -> Outcome:
        """Answer the pending approval interrupt the way the docs teach: one decision per reviewed call."""
        pending = self.outcome().pending
        if len(pending) > 1:
            raise NotImplementedError("batched HITL takes every decision of a turn at once; the driver decided one call")
        if decision["type"] == "approve":
            self.emit({"kind": "approval_granted", "call_id": call_id})
        return self.run(Command(resume={"decisions": [decision]}))

    def resume(self) -> Outcome:
        """Continue the saved state the way LangGraph continues it, always: ``stream(None)`` from the latest
        checkpoint (the head after a restore), saying from where. LangGraph decides what runs (the tasks of
        ``next``, an interrupted node with the answer saved before a kill, or nothing on a finished thread)."""
        state = self.state()
        if state.tasks:  # a finished thread has nothing left to run
            self.emit({"kind": "resumed", **self.position(state)})
        return self.run(None)

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
        if any(a.get("kind") == "reconcile" for a in asked):
            position = "reconcile"
        elif asked:
            position = "awaiting_approval"
        else:
            position = "before_execute"
        call = self._intended(calls)
        # contract glue: start
        if self.contract is not None and position == "before_execute":
            record = self.contract.idempotency.get(self.contract.key(call["id"]))
            if record is not None and record.state is RecordState.COMPLETED:
                position = "after_execute"
            elif record is not None and record.state is not RecordState.FAILED:
                position = "reconcile"
        # contract glue: end
        pending = {"call_id": call["id"], "tool": call["name"], "args_hash": args_hash(call["args"])} if calls else None
        return {"position": position, "pending_call": pending, "approved_call_ids": sorted(approved)}

    def _intended(self, calls: list[dict[str, Any]]) -> dict[str, Any]:
        """The call the run was about to execute: the glue's last intent still open, else the model's first open call."""
        intended = calls[0] if calls else {}
        # contract glue: start
        if self.contract is not None and self.contract.intents.exists():
            open_ids = {c["id"]: c for c in calls}
            for line in self.contract.intents.read_text(encoding="utf-8").splitlines():
                intended = open_ids.get(json.loads(line)["call_id"], intended)
        # contract glue: end
        return intended

    def snapshot(self, path: Path) -> Outcome:
        """Remember the latest checkpoint's id: LangGraph keeps every checkpoint of the thread."""
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps({"checkpoint_id": self.state().config["configurable"]["checkpoint_id"]}), encoding="utf-8")
        return self.outcome()

    def restore(self, path: Path) -> Outcome:
        """Deliver the saved state again: the next step continues from the snapshot's checkpoint."""
        self.head.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
        return self.outcome()

    def outcome(self, refusal: str | None = None) -> Outcome:
        state = self.state()
        messages = state.values.get("messages", [])
        asked = [i.value for i in state.interrupts]
        pending: list[dict[str, Any]] = []
        if any(a.get("kind") == "reconcile" for a in asked):
            status = "reconcile_required"
        elif asked:
            status, pending = "awaiting_approval", _pending(asked, messages)
        elif state.tasks:  # a saved state that was interrupted mid-run: reporting it as done would hide that
            status = "crashed"
        elif not (messages and isinstance(messages[-1], AIMessage) and not messages[-1].tool_calls):
            status = "crashed"  # no final answer and nothing LangGraph will run: the run was lost, not completed
        elif str(messages[-1].content).startswith(LIMIT_PREFIX):
            status = "stopped_max_steps"
        else:
            status = "completed"
        return Outcome("refused" if refusal else status, status, refusal, pending)


_STATUS = {"success": "ok", "error": "error"}


def _tool_messages(values: Any) -> list[ToolMessage]:
    """The ToolMessages in one node's update (a dict, or a list of them for a fan-out)."""
    updates = values if isinstance(values, list) else [values]
    found: list[ToolMessage] = []
    for update in updates:
        if isinstance(update, dict):
            found += [m for m in update.get("messages", []) if isinstance(m, ToolMessage)]
    return found


def _pending(asked: list[dict[str, Any]], messages: list[BaseMessage]) -> list[dict[str, Any]]:
    """The reviewed calls with their ids: the HITL request names tool and args, in the model's call order."""
    open_calls = unanswered(messages)
    pending = []
    for request in (r for a in asked for r in a.get("action_requests", [])):
        call = next(c for c in open_calls if c["name"] == request["name"] and c["args"] == request["args"])
        open_calls.remove(call)
        pending.append({"call_id": call["id"], "tool": call["name"], "args": call["args"]})
    return pending
