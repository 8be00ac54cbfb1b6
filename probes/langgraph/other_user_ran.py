"""A tool that acts for the session's user takes the user from the graph's runtime context, but the model can still
name another user: ``ToolNode`` injects ``ToolRuntime`` (whose context says bob) and drops the model's extra
``username`` argument (alice) with the tool's argument model, so the call runs (for bob) where the contract refuses it.

Documented API only: ``StateGraph(MessagesState, context_schema=...)`` and ``invoke(..., context=...)``
(https://reference.langchain.com/python/langgraph/runtime), a tool taking ``runtime: ToolRuntime[Context]``
(https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolRuntime), ``ToolNode`` and ``tools_condition``
(https://langchain-ai.github.io/langgraph/how-tos/tool-calling/), ``GenericFakeChatModel`` replaying the script.
"""

from dataclasses import dataclass

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, ToolRuntime, tools_condition

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "identity_scoped_tool"
SHOWS = (
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "side_effects.c2.effects",
    "side_effects.c2.executor_entries",
    "side_effects.c2.tool_entries",
)

fixture = world()


@dataclass
class SessionUser:
    user: str


@tool
def list_orders(runtime: ToolRuntime[SessionUser]) -> str:
    """Orders of the signed-in user (acts for the session's user: the user comes from the session)."""
    return str(fixture.call("list_orders", runtime.tool_call_id, {"username": runtime.context.user}))


model = GenericFakeChatModel(messages=iter([
    AIMessage("", tool_calls=[{"id": "c1", "name": "list_orders", "args": {}}]),
    AIMessage("", tool_calls=[{"id": "c2", "name": "list_orders", "args": {"username": "alice"}}]),  # another user
    AIMessage("You have two orders: ORD-2001 (pending) and ORD-2002. I cannot look up another customer's orders."),
]))

graph = StateGraph(MessagesState, context_schema=SessionUser)
graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
graph.add_node("tools", ToolNode([list_orders]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition)
graph.add_edge("tools", "agent")
result = graph.compile().invoke({"messages": [("user", "What are my orders? And what did alice order?")]}, context=SessionUser(user="bob"))
print("c2 answered:", next(m.content for m in result["messages"] if isinstance(m, ToolMessage) and m.tool_call_id == "c2"))

ledger = counts()
report(SCENARIO, {f"side_effects.{c}.{k}": ledger[c][k] for c in ("c1", "c2") for k in ("tool_entries", "executor_entries", "effects")})
