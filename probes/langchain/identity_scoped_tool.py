"""A tool that acts for the session's user takes the user from the run's context, but the model can still name another
user: ``list_orders`` reads the user from ``ToolRuntime``'s context (bob), and the model's extra ``username`` argument
(alice) is simply dropped by the ``@tool`` argument model, so the call runs (for bob) where the contract refuses it.

Documented API only: ``create_agent(..., context_schema=...)`` and ``invoke(..., context=...)``, a tool taking
``runtime: ToolRuntime[Context]`` (https://docs.langchain.com/oss/python/langchain/runtime, "Inside tools";
https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolRuntime); the agent, the tool and the scripted
chat model are the kit's (``probes/langchain/_kit.py``).
"""

from _kit import Scripted, SessionUser, agent, call, fixture_tools, flat, ledger, results, user

from harness.column_side.probes.kit import report, world

SCENARIO = "identity_scoped_tool"
SHOWS = ("side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries",
         "side_effects.c2.effects", "side_effects.c2.executor_entries", "side_effects.c2.tool_entries")

model = Scripted(script=[
    [call("c1", "list_orders", {})],
    [call("c2", "list_orders", {"username": "alice"})],  # another user
    "You have two orders: ORD-2001 (pending) and ORD-2002. I cannot look up another customer's orders.",
])
app = agent(model, fixture_tools(world().call, "list_orders"), context_schema=SessionUser)
result = app.invoke(user("What are my orders? And what did alice order?"), context=SessionUser(user="bob"))
print("c2 answered:", results(result["messages"], "c2"))

found = ledger()
report(SCENARIO, flat("side_effects", {c: found[c] for c in ("c1", "c2")}))
