"""LangGraph's approval is whatever value resumes the interrupt: an approval carrying a token for other arguments
runs the transfer, a token reused from the first call runs the second, the rejection after it finds nothing to
stop, and LangGraph refuses none of them.

Documented API only: an approve-or-reject node (``interrupt()``, ``Command(goto=...)``) answered by interrupt id,
``Command(resume={interrupt_id: value})`` (https://docs.langchain.com/oss/python/langgraph/interrupts, "Approve or
reject" and "Handling multiple interrupts"), ``InMemorySaver``, ``ToolNode``, ``GenericFakeChatModel``.
"""

from typing import Annotated

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, interrupt

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "approval_token_misuse"
SHOWS = (
    "pre_approval_state.decisions.0.effects_before",
    "pre_approval_state.decisions.1.effects_before",
    "pre_approval_state.decisions.6.effects_before",
    "refusals",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c2.effects",
    "side_effects.c2.executor_entries",
    "step_statuses",
)

fixture = world()


@tool
def transfer_funds(from_account: str, to_account: str, amount_cents: int, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return str(fixture.call("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


def transfer(call_id: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"id": call_id, "name": "transfer_funds", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}}])


model = GenericFakeChatModel(messages=iter([transfer("c1"), transfer("c2"), AIMessage("Sent once; the second transfer was not approved.")]))


def review(state: MessagesState) -> Command:
    call = state["messages"][-1].tool_calls[0]
    answer = interrupt({"call_id": call["id"], "tool": call["name"], "args": call["args"]})
    if answer["approve"]:
        return Command(goto="tools")
    return Command(goto="agent", update={"messages": [ToolMessage(f"rejected: {answer['reason']}", tool_call_id=call["id"], status="error")]})


graph = StateGraph(MessagesState)
graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
graph.add_node("review", review, destinations=("tools", "agent"))
graph.add_node("tools", ToolNode([transfer_funds]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition, {"tools": "review", "__end__": "__end__"})
graph.add_edge("tools", "agent")
app, config = graph.compile(checkpointer=InMemorySaver()), {"configurable": {"thread_id": "sess-approval_token_misuse"}}
statuses, refusals, effects_before = [], [], []


def step(payload: object | None) -> None:
    if payload is not None:
        try:
            app.invoke(payload, config)
        except Exception as error:  # the only way LangGraph could say no
            refusals.append(repr(error))
    state = app.get_state(config)
    statuses.append("awaiting_approval" if state.interrupts else "completed" if not state.next else "crashed")


def decide(call_id: str, answer: dict) -> None:
    effects_before.append({cid: c["effects"] for cid, c in counts().items()})
    asks = {i.value["call_id"]: i.id for i in app.get_state(config).interrupts}
    if call_id in asks:  # the answer goes to the interrupt that asks about this call
        step(Command(resume={asks[call_id]: answer}))
    elif not asks:  # no question pending at all: the plain resume value
        step(Command(resume=answer))
    else:  # another call's question is pending: no interrupt id to pair this answer with, nothing is sent
        step(None)


step({"messages": [("user", "Send 25.00 from ACC-1 to ACC-2.")]})
for misuse in ("other_args", "other_session", "expired", "forged"):
    decide("c1", {"approve": True, "token": f"token-{misuse}"})  # LangGraph never reads the token
decide("c1", {"approve": True})
decide("c2", {"approve": True, "token": "token-of-c1"})  # reused
decide("c2", {"approve": False, "reason": "duplicate transfer"})

ledger = counts()
report(SCENARIO, {**{f"side_effects.{cid}.{k}": ledger[cid][k] for cid in ("c1", "c2") for k in ("executor_entries", "effects")},
                  "step_statuses": statuses, "refusals": refusals,
                  **{f"pre_approval_state.decisions.{i}.effects_before": effects_before[i] for i in (0, 1, 6)}})
