"""LangGraph answers an interrupt by its id (``Command(resume={interrupt_id: value})``): an approval keyed by the
interrupt of the other pending transfer (c2's id, handed over as the decision for c1) answers c2, not c1, so c1
still asks and nothing runs; the rejection of c2 that follows finds no question of c2's left and is not sent.
LangGraph refuses neither; the contract refuses the first (an approval made for another call) outright.

Documented API only: one approval task per call (``Send``) that asks with ``interrupt()``, answered by interrupt id
(https://docs.langchain.com/oss/python/langgraph/interrupts, "Handling multiple interrupts"), ``InMemorySaver``,
``GenericFakeChatModel``.
"""

import operator
from typing import Annotated

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, Send, interrupt

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "approval_misuse_other_call"
SHOWS = ("refusals", "side_effects", "step_statuses")

fixture = world()
CALLS = [{"id": "c1", "name": "transfer_funds", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}},
         {"id": "c2", "name": "transfer_funds", "args": {"from_account": "ACC-1", "to_account": "ACC-3", "amount_cents": 9900}}]
model = GenericFakeChatModel(messages=iter([AIMessage("", tool_calls=CALLS), AIMessage("Done.")]))


class State(MessagesState):
    approved: Annotated[list[str], operator.add]


def ask(state: State) -> list[Send] | str:
    calls = state["messages"][-1].tool_calls
    return [Send("review", {"call": c}) for c in calls] if calls else END


def review(task: dict) -> dict:
    call = task["call"]
    answer = interrupt({"call_id": call["id"], "tool": call["name"], "args": call["args"]})
    if answer["approve"]:
        return {"approved": [call["id"]]}
    return {"messages": [ToolMessage(f"rejected: {answer['reason']}", tool_call_id=call["id"], status="error")]}


def execute(state: State) -> dict:
    answered = {m.tool_call_id for m in state["messages"] if isinstance(m, ToolMessage)}
    calls = [c for c in state["messages"][-1].tool_calls if c["id"] in state["approved"] and c["id"] not in answered]
    return {"messages": [ToolMessage(str(fixture.call(c["name"], c["id"], c["args"])), tool_call_id=c["id"]) for c in calls]}


graph = StateGraph(State)
graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
graph.add_node("review", review)
graph.add_node("execute", execute)
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", ask, ["review", END])
graph.add_edge("review", "execute")
graph.add_edge("execute", "agent")
app, config = graph.compile(checkpointer=InMemorySaver()), {"configurable": {"thread_id": "sess-approval_misuse_other_call"}}
statuses, refusals = [], []


def step(payload: object | None) -> None:
    if payload is not None:
        try:
            app.invoke(payload, config)
        except Exception as error:  # the only way LangGraph could say no
            refusals.append(repr(error))
    state = app.get_state(config)
    statuses.append("awaiting_approval" if state.interrupts else "completed" if not state.next else "crashed")


def asks() -> dict[str, str]:
    return {i.value["call_id"]: i.id for i in app.get_state(config).interrupts}


step({"messages": [("user", "Send 25.00 from ACC-1 to ACC-2 and 99.00 from ACC-1 to ACC-3.")]})
step(Command(resume={asks()["c2"]: {"approve": True}}))  # the decision for c1, keyed by c2's interrupt
step(Command(resume={asks()["c2"]: {"approve": False, "reason": "not this one"}}) if "c2" in asks() else None)
ledger = {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in counts().items()}
report(SCENARIO, {"side_effects": ledger, "step_statuses": statuses, "refusals": refusals})
