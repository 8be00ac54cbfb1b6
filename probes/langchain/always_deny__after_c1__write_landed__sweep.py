"""The crash sweep's worst case for LangChain: a kill right after a tool's effect, then a resume, and the effect happens
again, even with every checkpoint written before the kill on disk. ``create_agent`` runs the call as a tools task of
its LangGraph graph; the process dies inside ``drop_database`` after its effect, before the task's writes were saved,
so the thread's newest checkpoint still has that task to run and the resume runs the tool again: two effects, where
the uninterrupted run had one.

Schedule ``write_landed``: the killed run passes the documented ``durability="sync"`` (each checkpoint is written
before the next step starts; under the default ``"async"`` the write races the kill). Documented API only:
``create_agent`` with the docs' approval setup (``HumanInTheLoopMiddleware`` over the high-risk tools: none here,
https://docs.langchain.com/oss/python/langchain/human-in-the-loop), a ``SqliteSaver``, a resume as ``invoke(None)``
(https://docs.langchain.com/oss/python/langgraph/durable-execution), through the kit (``probes/langchain/_kit.py``).
"""

from _kit import Scripted, agent, call, fixture_tools, ledger, on_disk, thread, user

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "always_deny__after_c1@write_landed"
MODE = "sweep"
SHOWS = ("side_effects.c1.effects",)

model = Scripted(script=[[call("c1", "drop_database", {"name": "prod"})], "I am not allowed to drop databases."])
tools = fixture_tools(world(Fault("tool.kill_after_effect", call_id="c1")).call, "drop_database")
config = thread("sess-always_deny")


def app():
    """The agent over the checkpoint file, with a connection of this process's own."""
    return agent(model, tools, reviewed=(), checkpointer=on_disk())


assert in_child(lambda: app().invoke(user("Drop the prod database."), config, durability="sync")) == FAULT_EXIT_CODE
app().invoke(None, config)  # the driver's resume
report(SCENARIO, {"side_effects.c1.effects": ledger()["c1"]["effects"]})
