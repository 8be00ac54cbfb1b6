"""LangGraph's time travel replays a paused state as new: approving the call again from the checkpoint saved at
the pause runs the transfer a second time (nothing records that the call already ran).

Documented API only: ``interrupt()`` / ``Command(resume={interrupt_id: value})``
(https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject), a run from a checkpoint id
(https://docs.langchain.com/oss/python/langgraph/use-time-travel), ``ToolNode``, a small ``BaseChatModel`` answering
turn N of the script, N the number of assistant messages it is sent (the replayed turn gets the same answer).
"""

from typing import Annotated

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, interrupt

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "resume_same_state_twice"
SHOWS = (
    "idempotent_replay.c1.effects",
    "idempotent_replay.c1.equal",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
)

fixture = world()


@tool
def transfer_funds(from_account: str, to_account: str, amount_cents: int, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return str(fixture.call("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


class Scripted(BaseChatModel):
    script: list[AIMessage]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        turn = sum(isinstance(m, AIMessage) for m in messages)
        return ChatResult(generations=[ChatGeneration(message=self.script[turn])])


model = Scripted(script=[
    AIMessage("", tool_calls=[{"id": "c1", "name": "transfer_funds", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}}]),
    AIMessage("Sent 25.00 from ACC-1 to ACC-2."),
])


def review(state: MessagesState) -> dict:
    call = state["messages"][-1].tool_calls[0]
    interrupt({"call_id": call["id"], "tool": call["name"], "args": call["args"]})  # approved when it returns
    return {}


graph = StateGraph(MessagesState)
graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
graph.add_node("review", review)
graph.add_node("tools", ToolNode([transfer_funds]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition, {"tools": "review", "__end__": "__end__"})
graph.add_edge("review", "tools")
graph.add_edge("tools", "agent")
app, thread = graph.compile(checkpointer=InMemorySaver()), {"configurable": {"thread_id": "sess-resume_same_state_twice"}}


def approve(config: dict) -> list[str]:
    asked = app.get_state(config).interrupts[0].id
    final = app.invoke(Command(resume={asked: {"approve": True}}), config)
    return [m.content for m in final["messages"] if isinstance(m, ToolMessage) and m.tool_call_id == "c1"]


app.invoke({"messages": [("user", "Send 25.00 from ACC-1 to ACC-2.")]}, thread)
paused = app.get_state(thread).config  # snapshot: the checkpoint of the pause
results = approve(thread)
results += approve(paused)  # restore: time travel to the pause, and the same approval again

ledger = counts()["c1"]
report(SCENARIO, {**{f"side_effects.c1.{k}": ledger[k] for k in ("tool_entries", "executor_entries", "effects")},
                  "idempotent_replay.c1.effects": ledger["effects"], "idempotent_replay.c1.equal": len(set(results)) == 1})
