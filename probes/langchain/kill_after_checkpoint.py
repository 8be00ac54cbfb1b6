"""``create_agent`` has no checkpoint between a tool call's intent and its executor, so the scenario's kill point
(``engine.kill_after_checkpoint``, right after such a checkpoint) is never met: the run completes in the process
meant to be killed, and the resume finds a finished thread and runs nothing.

Documented API only: a resume as ``invoke(None)`` on the thread (https://docs.langchain.com/oss/python/langgraph/durable-execution);
``create_agent`` with a ``SqliteSaver`` checkpointer on a file, the ``@tool`` and the scripted chat model are the kit's
(``probes/langchain/_kit.py``).
"""

from _kit import Scripted, agent, call, fixture_tools, on_disk, status, thread, user

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "kill_after_checkpoint"
SHOWS = ("checkpoint_after_interrupt.interrupts", "step_statuses.0", "step_statuses.1")

tools = fixture_tools(world(Fault(point="engine.kill_after_checkpoint", call_id="c1")).call, "put_note")
model = Scripted(script=[[call("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], "The note is saved."])
config = thread("sess-kill_after_checkpoint")


def app():
    """The agent over the checkpoint file, with a connection of this process's own."""
    return agent(model, tools, checkpointer=on_disk())


codes = [in_child(lambda: app().invoke(user("Save a follow-up note."), config))]
statuses = ["crashed" if codes[0] == FAULT_EXIT_CODE else status(app(), config)]
app().invoke(None, config)  # the driver's resume
statuses.append(status(app(), config))
report(SCENARIO, {"checkpoint_after_interrupt.interrupts": [i for i, c in enumerate(codes) if c == FAULT_EXIT_CODE],
                  "step_statuses.0": statuses[0], "step_statuses.1": statuses[1]})
