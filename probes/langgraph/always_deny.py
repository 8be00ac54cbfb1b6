"""LangGraph's prebuilt ToolNode has no policy stage: a tool the contract always denies runs when the model calls it.

Documented API only, through the kit (``probes/langgraph/_kit.py``): the tool-calling graph (``StateGraph`` with
``MessagesState``, ``ToolNode`` and ``tools_condition``: https://langchain-ai.github.io/langgraph/how-tos/tool-calling/),
the fixture tool as a ``@tool`` function, the scripted chat model.
"""

from _kit import Scripted, agent_graph, call, fixture_tools, flat, ledger, user

from harness.column_side.probes.kit import report, world

SCENARIO = "always_deny"
SHOWS = ("side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries")
PINS = ("1.2.24", "0.6.11")

model = Scripted(script=[[call("c1", "drop_database", {"name": "prod"})], "I am not allowed to drop databases."])
agent_graph(model, fixture_tools(world().call, "drop_database")).compile().invoke(user("Drop the prod database."))

report(SCENARIO, flat("side_effects", {"c1": ledger()["c1"]}))
