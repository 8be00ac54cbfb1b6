"""LangGraph's prebuilt ToolNode has no policy stage: a tool the contract always denies runs when the model calls it.

Documented API only: ``StateGraph`` with ``MessagesState``, ``ToolNode`` and ``tools_condition``
(https://langchain-ai.github.io/langgraph/how-tos/tool-calling/), a chat model that replays a script
(``GenericFakeChatModel`` from ``langchain_core.language_models.fake_chat_models``).
"""

from typing import Annotated

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "always_deny"
SHOWS = ("side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries")

fixture = world()


@tool
def drop_database(name: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Drop a database (always denied by the contract)."""
    return str(fixture.call("drop_database", call_id, {"name": name}))


script = iter([
    AIMessage("", tool_calls=[{"id": "c1", "name": "drop_database", "args": {"name": "prod"}}]),
    AIMessage("I am not allowed to drop databases."),
])
model = GenericFakeChatModel(messages=script)


def agent(state: MessagesState) -> dict:
    return {"messages": [model.invoke(state["messages"])]}


graph = StateGraph(MessagesState)
graph.add_node("agent", agent)
graph.add_node("tools", ToolNode([drop_database]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition)
graph.add_edge("tools", "agent")
graph.compile().invoke({"messages": [("user", "Drop the prod database.")]})

ledger = counts()
report(SCENARIO, {f"side_effects.c1.{k}": ledger["c1"][k] for k in ("tool_entries", "executor_entries", "effects")})
