"""LangGraph takes an answer sent to a thread that waits on no interrupt as a resume of whatever it has left: after the
first transfer timed out (after its effect) inside the tools task and the run ended in the error, an approval of the
second transfer, which no interrupt asks about any more, runs the failed tools task again, so t1 moves money a second
time and the run completes. The contract refuses that approval (t2 is not pending) and runs nothing.

Documented API only: one approval task per call (``Send``) that asks with ``interrupt()``, answered by interrupt id,
and the plain ``Command(resume=value)`` (https://docs.langchain.com/oss/python/langgraph/interrupts), ``ToolNode``
(whose default error handling re-raises a tool's ``TimeoutError``:
https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode), ``SqliteSaver``
(https://docs.langchain.com/oss/python/langgraph/persistence), a small ``BaseChatModel`` answering turn N of the
script, N the number of assistant messages it is sent.
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

from harness.column_side.probe_kit import SCRATCH, Fault, counts, report, world

SCENARIO = "uncertain_then_second_transfer"
SHOWS = ("side_effects.t1", "side_effects.t2", "step_statuses.2", "step_statuses.4")

fixture = world(Fault("tool.timeout_after_effect", call_id="t1"))
config = {"configurable": {"thread_id": "sess-uncertain_then_second_transfer"}}


first_done = threading.Event()  # ToolNode runs the batch in threads: t2 goes after t1 has ended, the model's order (as the column pins it)


@tool
def transfer_funds(from_account: str, to_account: str, amount_cents: int, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    if call_id != "t1":
        first_done.wait(10)
    try:
        return str(fixture.call("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))
    finally:
        if call_id == "t1":
            first_done.set()


class Scripted(BaseChatModel):
    script: list[AIMessage]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.script[sum(isinstance(m, AIMessage) for m in messages)])])


model = Scripted(script=[
    AIMessage("", tool_calls=[{"id": "t1", "name": "transfer_funds", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}},
                              {"id": "t2", "name": "transfer_funds", "args": {"from_account": "ACC-1", "to_account": "ACC-3", "amount_cents": 100}}]),
    AIMessage("done"),
])


def open_calls(messages) -> list[dict]:
    """The last model turn's calls with no tool result yet."""
    last = max(i for i, m in enumerate(messages) if isinstance(m, AIMessage))
    answered = {m.tool_call_id for m in messages[last:] if isinstance(m, ToolMessage)}
    return [c for c in messages[last].tool_calls if c["id"] not in answered]


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
graph.add_node("tools", ToolNode([transfer_funds]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", lambda s: [Send("approval", c) for c in open_calls(s["messages"])] or END, ["approval", END])
graph.add_edge("approval", "dispatch")
graph.add_edge("tools", "agent")
app = graph.compile(checkpointer=SqliteSaver(sqlite3.connect(str(SCRATCH / "langgraph.sqlite"), check_same_thread=False)))


def step(payload) -> str:
    """One driver step, its status read from the thread as LangGraph leaves it (an exception out of the run: error)."""
    try:
        app.invoke(payload, config)
    except TimeoutError:
        return "error"
    state = app.get_state(config)
    final = isinstance(state.values["messages"][-1], AIMessage) and not state.values["messages"][-1].tool_calls
    return "awaiting_approval" if state.interrupts else "completed" if final and not state.tasks else "crashed"


def asks(call_id: str) -> dict:
    return {i.value["call_id"]: i.id for i in app.get_state(config).interrupts}.get(call_id)


statuses = {0: step({"messages": [("user", "Send 25.00 to ACC-2 and 1.00 to ACC-3 from ACC-1.")]})}  # driver step 0: both ask
statuses[1] = step(Command(resume={asks("t1"): {"approve": True}}))  # approve t1 (t2 still asks)
statuses[2] = step(Command(resume={asks("t2"): {"approve": True}}))  # approve t2: the batch runs, t1 times out after its effect
# driver step 3, reconcile t1: LangGraph has no notion of an uncertain call (the column refuses it; nothing runs)
assert asks("t2") is None and not app.get_state(config).interrupts  # nothing asks about t2 now: only the plain resume value is left
before = counts()["t1"]["executor_entries"]
statuses[4] = step(Command(resume={"approve": True, "reason": "not approved"}))  # approve t2 again
print("t1 executor entries in driver step 4:", counts()["t1"]["executor_entries"] - before)

ledger = counts()
report(SCENARIO, {**{f"side_effects.{c}": {k: ledger[c][k] for k in ("tool_entries", "executor_entries", "effects")} for c in ("t1", "t2")},
                  "step_statuses.2": statuses[2], "step_statuses.4": statuses[4]})
