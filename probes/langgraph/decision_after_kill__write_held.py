"""LangGraph takes a human's answer sent to a killed thread that waits on no interrupt as a resume: the thread's
pending work runs again. When the kill came before the model turn's checkpoint landed, that work is the model
turn itself, so the model is asked for turn 0 a second time, and the read-only call runs twice.

Schedule ``write_held``: the kill inside ``get_weather`` comes before LangGraph's background thread wrote the
model turn's checkpoint and task writes (default ``durability="async"``: the write races the next super-step). The
probe forces that ordering with LangGraph's own ``SqliteSaver``, told to drop every write after the input's in the
killed child, which is what the process death leaves on disk. Documented API only: ``Command(resume=...)``
(https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject), durability modes
(https://docs.langchain.com/oss/python/langgraph/durable-execution); the tool-calling graph, ``SqliteSaver`` on a file and
the scripted model, which notes each turn it answers in a file, are the kit's (``probes/langgraph/_kit.py``).
"""

from _kit import APPROVE, Scripted, agent_graph, call, fixture_tools, on_disk, thread, turns_asked, user
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, counts, in_child, report, world

SCENARIO = "decision_after_kill@write_held"
SHOWS = ("model.calls_per_turn.0", "model.calls_per_turn.1", "side_effects.c1.executor_entries", "step_statuses.1")
PINS = ("1.2.24", "0.6.11")

tools = fixture_tools(world(Fault("tool.kill_before_effect", call_id="c1")).call, "get_weather")
graph = agent_graph(Scripted(script=[[call("c1", "get_weather", {"city": "Rome"})], "All set."]), tools)
config = thread("sess-decision_after_kill")


class HeldSaver(SqliteSaver):
    """The killed child's saver: the input's checkpoint lands, every later write is still with the background thread."""

    def put(self, config, checkpoint, metadata, new_versions):
        if metadata.get("step", -1) < 0:
            return super().put(config, checkpoint, metadata, new_versions)
        return {**config, "configurable": {**config["configurable"], "checkpoint_id": checkpoint["id"]}}

    def put_writes(self, config, writes, task_id, task_path=""):
        return None


killed = in_child(lambda: on_disk(graph, HeldSaver).invoke(user("Please take care of my request."), config)) == FAULT_EXIT_CODE
waiting = on_disk(graph).get_state(config)
on_disk(graph).invoke(Command(resume=APPROVE), config)  # the driver's approval of c1, with no interrupt asking about it
final = on_disk(graph).get_state(config)

turns = turns_asked()
report(SCENARIO, {
    "model.calls_per_turn.0": turns.count(0),
    "model.calls_per_turn.1": turns.count(1),
    "side_effects.c1.executor_entries": counts()["c1"]["executor_entries"],
    # the approval went in where no interrupt waited (the saved thread asked nothing) and the run finished
    "step_statuses.1": "completed" if killed and not waiting.interrupts and not final.next else "not taken",
})
