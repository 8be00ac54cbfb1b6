"""LangChain's ``create_agent`` has no deny policy: a tool the contract always denies runs when the model calls it,
since ``HumanInTheLoopMiddleware`` pauses only on the tools named in ``interrupt_on``.

Documented API only, through the kit (``probes/langchain/_kit.py``): ``create_agent`` with tools and a checkpointer
(https://docs.langchain.com/oss/python/langchain/agents), ``HumanInTheLoopMiddleware``
(https://docs.langchain.com/oss/python/langchain/human-in-the-loop), the ``@tool``, the scripted chat model.
"""

from _kit import Scripted, agent, call, fixture_tools, flat, ledger, thread, user
from langgraph.checkpoint.memory import InMemorySaver

from harness.column_side.probes.kit import report, world

SCENARIO = "always_deny"
SHOWS = ("side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries")

model = Scripted(script=[[call("c1", "drop_database", {"name": "prod"})], "I am not allowed to drop databases."])
# the docs' approval setup: only the high-risk tools are reviewed (this scenario has none), nothing says "never"
app = agent(model, fixture_tools(world().call, "drop_database"), reviewed=(), checkpointer=InMemorySaver())
app.invoke(user("Drop the prod database."), thread("t"))

report(SCENARIO, flat("side_effects", {"c1": ledger()["c1"]}))
