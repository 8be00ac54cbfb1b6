"""LangGraph keeps a rejection as the answered task's pending write on the checkpoint that asked: after time travel to
the paused checkpoint (saved before the rejection), the approval of t1 never reaches the approval task, whose write
(the rejection) is applied again, so t1 is answered with the same rejection and the transfer never runs. The contract
keeps no rejection under the call's key: its restored pause waits again and the approval runs t1.

Documented API only: one approval task per call (``Send``) that asks with ``interrupt()``, answered by interrupt id
(https://docs.langchain.com/oss/python/langgraph/interrupts, "Handling multiple interrupts"), a run from a checkpoint id
(https://docs.langchain.com/oss/python/langgraph/use-time-travel), ``ToolNode`` with a tool taking
``runtime: ToolRuntime[Context]`` (https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolRuntime),
``InMemorySaver``, a small ``BaseChatModel`` answering turn N of the script, N the number of assistant messages it is sent.
"""

import json
from dataclasses import dataclass
from typing import Annotated

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, ToolRuntime
from langgraph.types import Command, Send, interrupt

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "rejected_then_restored_approved"
SHOWS = ("idempotent_replay.t1.effects", "idempotent_replay.t1.equal", "idempotent_replay.t1.results", "side_effects")

fixture = world()
PROMPT = "Show my orders and Carol's, then send 25.00 from ACC-1 to ACC-2."


@dataclass
class SessionUser:
    user: str


@tool
def list_orders(runtime: ToolRuntime[SessionUser]) -> str:
    """Orders of the signed-in user (acts for the session's user: the user comes from the session)."""
    return json.dumps(fixture.call("list_orders", runtime.tool_call_id, {"username": runtime.context.user}))


@tool
def transfer_funds(from_account: str, to_account: str, amount_cents: int, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return json.dumps(fixture.call("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


class Scripted(BaseChatModel):
    script: list[AIMessage]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        turn = sum(isinstance(m, AIMessage) for m in messages)
        return ChatResult(generations=[ChatGeneration(message=self.script[turn] if turn < len(self.script) else AIMessage("[no scripted turn left]"))])


model = Scripted(script=[
    AIMessage("", tool_calls=[{"id": "o1", "name": "list_orders", "args": {"username": "bob"}},
                              {"id": "o2", "name": "list_orders", "args": {"username": "bob"}},
                              {"id": "o3", "name": "list_orders", "args": {"username": "carol"}}]),
    AIMessage("", tool_calls=[{"id": "t1", "name": "transfer_funds", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}}]),
    AIMessage("done"),
])


def open_calls(messages) -> list[dict]:
    """The last model turn's calls with no tool result yet."""
    last = max(i for i, m in enumerate(messages) if isinstance(m, AIMessage))
    answered = {m.tool_call_id for m in messages[last:] if isinstance(m, ToolMessage)}
    return [c for c in messages[last].tool_calls if c["id"] not in answered]


def route(state: MessagesState):
    calls = open_calls(state["messages"])
    asked = [Send("approval", c) for c in calls if c["name"] == "transfer_funds"]
    return asked or ("tools" if calls else END)


def approval(call: dict) -> dict:  # one task per call: one interrupt about its own call
    answer = interrupt({"call_id": call["id"], "tool": call["name"], "args": call["args"]})
    if answer["approve"]:
        return {}
    text = json.dumps({"error": f"rejected by the human approver: {answer['reason']}"}, separators=(",", ":"))
    return {"messages": [ToolMessage(text, tool_call_id=call["id"], name=call["name"], status="error")]}


def dispatch(state: MessagesState) -> Command:  # the join: the calls not rejected go to the tools, else back to the model
    calls = open_calls(state["messages"])
    return Command(goto=[Send("tools", calls)] if calls else "agent")


graph = StateGraph(MessagesState, context_schema=SessionUser)
graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
graph.add_node("approval", approval)
graph.add_node("dispatch", dispatch, destinations=("tools", "agent"))
graph.add_node("tools", ToolNode([list_orders, transfer_funds]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", route, ["approval", "tools", END])
graph.add_edge("approval", "dispatch")
graph.add_edge("tools", "agent")
app, thread = graph.compile(checkpointer=InMemorySaver()), {"configurable": {"thread_id": "sess-rejected_then_restored_approved"}}
bob = SessionUser(user="bob")


def decide(config: dict, answer: dict) -> list[str]:
    """Answer t1's interrupt by its id; the results t1 holds afterwards."""
    asked = {i.value["call_id"]: i.id for i in app.get_state(config).interrupts}
    final = app.invoke(Command(resume={asked["t1"]: answer}), config, context=bob)
    return [m.content for m in final["messages"] if isinstance(m, ToolMessage) and m.tool_call_id == "t1"]


app.invoke({"messages": [("user", PROMPT)]}, thread, context=bob)  # driver step 0: the orders, then t1 asks
paused = app.get_state(thread).config  # step 1, snapshot: the paused checkpoint
results = decide(thread, {"approve": False, "reason": "not approved"})  # step 2: reject t1
app.invoke({"messages": [("user", PROMPT)]}, thread, context=bob)  # step 3: the same event again, a new turn
results += decide(paused, {"approve": True})  # steps 4-5: restore the snapshot, approve t1

ledger = counts()
report(SCENARIO, {
    "side_effects": {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in ledger.items()},
    "idempotent_replay.t1.effects": ledger.get("t1", {}).get("effects", 0),
    "idempotent_replay.t1.results": results,
    "idempotent_replay.t1.equal": len(set(results)) == 1,
})
