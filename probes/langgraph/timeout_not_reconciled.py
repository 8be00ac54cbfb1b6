"""LangGraph has no uncertain state for a call that timed out after its effect: ``ToolNode`` re-raises the
``TimeoutError``, the approved run ends in that error with the ``tools`` task still to run and no question
pending, and the model never hears of the transfer that did happen.

Documented API only: ``interrupt()`` / ``Command(resume=...)``
(https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject), ``InMemorySaver`` and
``get_state`` (https://docs.langchain.com/oss/python/langgraph/persistence), ``ToolNode`` with its default
``handle_tool_errors`` (https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode), and
``GenericFakeChatModel`` replaying the script (the agent node records the turn it asks for).
"""

from collections import Counter
from itertools import chain, repeat
from typing import Annotated

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, interrupt

from harness.column_side.probe_kit import Fault, counts, report, world

SCENARIO = "uncertain_after_timeout"
SHOWS = ("model.calls_per_turn", "model.unused_turns", "status", "step_statuses.0", "step_statuses.1")

fixture = world(Fault("tool.timeout_after_effect", call_id="c1"))


@tool
def transfer_funds(from_account: str, to_account: str, amount_cents: int, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return str(fixture.call("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


script = [
    AIMessage("", tool_calls=[{"id": "c1", "name": "transfer_funds", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}}]),
    AIMessage("Sent 25.00 from ACC-1 to ACC-2."),
]
model = GenericFakeChatModel(messages=chain(script, repeat(AIMessage("[no scripted turn left]"))))
asked: list[int] = []


def agent(state: MessagesState) -> dict:
    asked.append(sum(isinstance(m, AIMessage) for m in state["messages"]))  # the turn the model is asked for
    return {"messages": [model.invoke(state["messages"])]}


def review(state: MessagesState) -> dict:
    call = state["messages"][-1].tool_calls[0]
    interrupt({"call_id": call["id"], "tool": call["name"], "args": call["args"]})  # approved when it returns
    return {}


graph = StateGraph(MessagesState)
graph.add_node("agent", agent)
graph.add_node("review", review)
graph.add_node("tools", ToolNode([transfer_funds]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition, {"tools": "review", "__end__": "__end__"})
graph.add_edge("review", "tools")
graph.add_edge("tools", "agent")
app, config = graph.compile(checkpointer=InMemorySaver()), {"configurable": {"thread_id": "sess-uncertain_after_timeout"}}


def status() -> str:
    state = app.get_state(config)
    return "awaiting_approval" if state.interrupts else "completed" if not state.next else "crashed"  # tasks left, nothing asked


app.invoke({"messages": [("user", "Send 25.00 from ACC-1 to ACC-2.")]}, config)
statuses = [status()]
try:
    app.invoke(Command(resume={"approve": True}), config)
    statuses.append(status())
except TimeoutError:  # re-raised by ToolNode: the run ends here, after the effect
    statuses.append("error")
print(f"after the timeout: next={app.get_state(config).next}, effects={counts()['c1']['effects']}", flush=True)

report(SCENARIO, {"step_statuses.0": statuses[0], "step_statuses.1": statuses[1], "status": status(),
                  "model.calls_per_turn": {str(t): n for t, n in sorted(Counter(asked).items())},
                  "model.unused_turns": sorted(set(range(len(script))) - set(asked))})
