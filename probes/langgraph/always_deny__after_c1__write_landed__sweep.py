"""The crash sweep's worst case for LangGraph: a kill right after a tool's effect, then a resume, and the effect
happens again, even with every checkpoint written before the kill on disk. The tools node's task is killed inside
``drop_database`` after its effect, before the task's writes were saved; the thread's newest checkpoint still names
``tools`` as the next node, so continuing the thread runs the task, and the tool, again: two effects, where the
uninterrupted run had one.

Schedule ``write_landed``: the killed run uses the documented ``durability="sync"``, which saves each super-step's
checkpoint before the next starts (under the default ``"async"`` that write races the kill). Documented API only:
the tool-calling graph (``StateGraph`` with ``ToolNode``:
https://langchain-ai.github.io/langgraph/how-tos/tool-calling/), ``SqliteSaver`` on a file and ``invoke(None, config)``
to continue a thread (https://docs.langchain.com/oss/python/langgraph/persistence), durability modes
(https://docs.langchain.com/oss/python/langgraph/durable-execution), through the kit (``probes/langgraph/_kit.py``).
"""

from _kit import Scripted, agent_graph, call, fixture_tools, ledger, on_disk, thread, user

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "always_deny__after_c1@write_landed"
MODE = "sweep"
SHOWS = ("side_effects.c1.effects",)

model = Scripted(script=[[call("c1", "drop_database", {"name": "prod"})], "I am not allowed to drop databases."])
graph = agent_graph(model, fixture_tools(world(Fault("tool.kill_after_effect", call_id="c1")).call, "drop_database"))
config = thread("sess-always_deny")

killed = in_child(lambda: on_disk(graph).invoke(user("Drop the prod database."), config, durability="sync"))
assert killed == FAULT_EXIT_CODE and on_disk(graph).get_state(config).next == ("tools",)  # died inside the tools node
on_disk(graph).invoke(None, config)  # continue the thread the way LangGraph does
report(SCENARIO, {"side_effects.c1.effects": ledger()["c1"]["effects"]})
