"""LangGraph resumes a batch killed inside one of its calls by running the whole tools task again, and goes on: the
approved transfer moves money a second time, the email runs, the model's next turn writes the note, and the run
completes before the human's next approval of the email arrives. That approval finds no interrupt and is a plain
``Command(resume=...)``: LangGraph runs nothing and says nothing (the contract stops at the resume for a reconcile of
the email and refuses the approval: the email is not pending).

Schedules ``write_landed`` and ``siblings_first``: the approving run passes the documented ``durability="sync"`` (each
checkpoint is written before the next step starts; under the default ``"async"`` that write races the kill), and the
email waits until the transfer of its batch has returned (``ToolNode`` runs a turn's calls in threads, so the kill
inside the email races its sibling). Documented API only: one approval task per call (``Send``) that asks with
``interrupt()``, answered by interrupt id (https://docs.langchain.com/oss/python/langgraph/interrupts, "Handling multiple
interrupts"), ``SqliteSaver`` and ``invoke(None, config)`` (https://docs.langchain.com/oss/python/langgraph/persistence),
durability modes (https://docs.langchain.com/oss/python/langgraph/durable-execution), ``ToolNode``, a small
``BaseChatModel`` answering turn N of the script, N the number of assistant messages it is sent.
"""

import sqlite3
import threading
from typing import Annotated

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import Command, Send, interrupt

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, counts, in_child, report, world

SCENARIO = "misused_approval_kill_resume@write_landed+siblings_first"
SHOWS = ("pre_approval_state.decisions.3.effects_before", "side_effects.t1", "step_statuses.3", "step_statuses.4", "step_statuses.5")

fixture = world(Fault("tool.kill_before_effect", call_id="m1"))
checkpoints, config = str(SCRATCH / "langgraph.sqlite"), {"configurable": {"thread_id": "sess-misused_approval_kill_resume"}}
transfer_returned = threading.Event()  # siblings_first: the email's body starts once the transfer of its batch has returned


@tool
def transfer_funds(from_account: str, to_account: str, amount_cents: int, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    try:
        return str(fixture.call("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))
    finally:
        transfer_returned.set()


@tool
def send_email(to: str, subject: str, body: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Send an email. High risk: needs a human approval."""
    transfer_returned.wait(timeout=10)
    return str(fixture.call("send_email", call_id, {"to": to, "subject": subject, "body": body}))


@tool
def put_note(key: str, text: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return str(fixture.call("put_note", call_id, {"key": key, "text": text}))


class Scripted(BaseChatModel):
    script: list[AIMessage]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.script[sum(isinstance(m, AIMessage) for m in messages)])])


model = Scripted(script=[
    AIMessage("", tool_calls=[{"id": "t1", "name": "transfer_funds", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}},
                              {"id": "m1", "name": "send_email", "args": {"to": "a@b.c", "subject": "s", "body": "b"}}]),
    AIMessage("", tool_calls=[{"id": "n1", "name": "put_note", "args": {"key": "n", "text": "x"}}]),
    AIMessage("done"),
])
REVIEWED = {"transfer_funds", "send_email"}  # the graph author's choice: the high-risk tools


def open_calls(messages) -> list[dict]:
    """The last model turn's calls with no tool result yet."""
    last = max(i for i, m in enumerate(messages) if isinstance(m, AIMessage))
    answered = {m.tool_call_id for m in messages[last:] if isinstance(m, ToolMessage)}
    return [c for c in messages[last].tool_calls if c["id"] not in answered]


def route(state: MessagesState):
    calls = open_calls(state["messages"])
    return [Send("approval", c) for c in calls if c["name"] in REVIEWED] or ("tools" if calls else END)


def approval(call: dict) -> dict:  # one task per call: one interrupt about its own call
    answer = interrupt({"call_id": call["id"], "tool": call["name"], "args": call["args"]})
    return {} if answer["approve"] else {"messages": [ToolMessage(f"rejected: {answer['reason']}", tool_call_id=call["id"], status="error")]}


def dispatch(state: MessagesState) -> Command:  # the join: the calls not rejected go to the tools, else back to the model
    calls = open_calls(state["messages"])
    return Command(goto=[Send("tools", calls)] if calls else "agent")


graph = StateGraph(MessagesState)
graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
graph.add_node("approval", approval)
graph.add_node("dispatch", dispatch, destinations=("tools", "agent"))
graph.add_node("tools", ToolNode([transfer_funds, send_email, put_note]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", route, ["approval", "tools", END])
graph.add_edge("approval", "dispatch")
graph.add_edge("tools", "agent")


def app():  # every process opens the checkpoint file itself: the parent knows only what the child left on disk
    return graph.compile(checkpointer=SqliteSaver(sqlite3.connect(checkpoints, check_same_thread=False)))


def status() -> str:
    state = app().get_state(config)
    final = isinstance(state.values["messages"][-1], AIMessage) and not state.values["messages"][-1].tool_calls
    return "awaiting_approval" if state.interrupts else "completed" if final and not state.tasks else "crashed"


def approve(call_id: str, **options) -> None:
    """The approval keyed by the interrupt that asks about the call; with other interrupts pending and none about this
    call there is no id to pair it with (nothing is sent); with none pending at all, the plain resume value."""
    state = app().get_state(config)
    asked = {i.value["call_id"]: i.id for i in state.interrupts}
    if call_id in asked:
        app().invoke(Command(resume={asked[call_id]: {"approve": True}}), config, **options)
    elif not state.interrupts:
        app().invoke(Command(resume={"approve": True, "reason": "not approved"}), config, **options)


app().invoke({"messages": [("user", "Send 25.00 from ACC-1 to ACC-2, email the receipt and note it.")]}, config)  # step 0
approve("t1")  # step 1: an approval made for another session: LangGraph's answer carries no session, so a plain one
approve("t1")  # step 2: t1 no longer asks, m1 does
killed = in_child(lambda: approve("m1", durability="sync")) == FAULT_EXIT_CODE  # step 3: the batch runs, dies inside m1
statuses = {3: "crashed" if killed else status()}
app().invoke(None, config)  # step 4: resume, the way LangGraph continues a thread
statuses[4] = status()
effects_before = {c: n["effects"] for c, n in counts().items()}  # the ledger when the human's next decision comes
entered_before = sum(n["executor_entries"] for n in counts().values())
approve("m1")  # step 5: approve the email again
statuses[5] = status()
print("executor entries in driver step 5:", sum(n["executor_entries"] for n in counts().values()) - entered_before)

ledger = counts()
report(SCENARIO, {"pre_approval_state.decisions.3.effects_before": effects_before,
                  "side_effects.t1": {k: ledger["t1"][k] for k in ("tool_entries", "executor_entries", "effects")},
                  **{f"step_statuses.{i}": s for i, s in statuses.items()}})
