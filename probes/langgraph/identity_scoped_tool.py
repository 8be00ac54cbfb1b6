"""A tool that acts for the session's user takes the user from the graph's runtime context, but the model can still
name another user: ``ToolNode`` injects ``ToolRuntime`` (whose context says bob; before LangGraph 1.0 the tool reads
the same context with ``get_runtime``) and drops the model's extra ``username`` argument (alice) with the tool's
argument model, so the call runs (for bob) where the contract refuses it.

Documented API only: ``StateGraph(MessagesState, context_schema=...)`` and ``invoke(..., context=...)``
(https://reference.langchain.com/python/langgraph/runtime), a tool taking ``runtime: ToolRuntime[Context]``
(https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolRuntime; ``get_runtime`` at 0.6.11:
https://langchain-ai.github.io/langgraph/agents/context/); the tool-calling graph, the tool
and the scripted model are the kit's (``probes/langgraph/_kit.py``).
"""

from _kit import Scripted, SessionUser, agent_graph, call, fixture_tools, flat, ledger, results, user

from harness.column_side.probes.kit import report, world

SCENARIO = "identity_scoped_tool"
SHOWS = ("side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries",
         "side_effects.c2.effects", "side_effects.c2.executor_entries", "side_effects.c2.tool_entries")
PINS = ("1.2.24", "0.6.11")

model = Scripted(script=[
    [call("c1", "list_orders", {})],
    [call("c2", "list_orders", {"username": "alice"})],  # another user
    "You have two orders: ORD-2001 (pending) and ORD-2002. I cannot look up another customer's orders.",
])
app = agent_graph(model, fixture_tools(world().call, "list_orders"), context_schema=SessionUser).compile()
result = app.invoke(user("What are my orders? And what did alice order?"), context=SessionUser(user="bob"))
print("c2 answered:", results(result["messages"], "c2"))

found = ledger()
report(SCENARIO, flat("side_effects", {c: found[c] for c in ("c1", "c2")}))
