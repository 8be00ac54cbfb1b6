"""LangGraph has no intent checkpoint between deciding to run a tool and running it: the fault point
``engine.kill_after_checkpoint`` has nowhere to fire, so the run is never killed and the resume finds a
finished thread (nothing to continue, the note written once).

Documented API only: ``invoke(None, config)`` to continue a thread (https://docs.langchain.com/oss/python/langgraph/persistence);
the tool-calling graph, ``SqliteSaver`` on a file and the scripted model are the kit's (``probes/langgraph/_kit.py``).
"""

from _kit import Scripted, agent_graph, call, fixture_tools, on_disk, status, thread, user

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, counts, in_child, report, world

SCENARIO = "kill_after_checkpoint"
SHOWS = ("checkpoint_after_interrupt.effects_after_resume", "checkpoint_after_interrupt.final_status", "checkpoint_after_interrupt.interrupts", "step_statuses")
PINS = ("1.2.24", "0.6.11")

tools = fixture_tools(world(Fault("engine.kill_after_checkpoint", call_id="c1")).call, "put_note")  # armed; nothing in LangGraph meets it
model = Scripted(script=[[call("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], "The note is saved."])
graph, config = agent_graph(model, tools), thread("sess-kill_after_checkpoint")

killed = in_child(lambda: on_disk(graph).invoke(user("Save a follow-up note."), config)) == FAULT_EXIT_CODE
statuses = [status(on_disk(graph), config)]
on_disk(graph).invoke(None, config)  # resume: LangGraph has nothing left to run
statuses.append(status(on_disk(graph), config))

report(SCENARIO, {"step_statuses": statuses, "checkpoint_after_interrupt.interrupts": [{"step": 0}] if killed else [],
                  "checkpoint_after_interrupt.effects_after_resume": {cid: c["effects"] for cid, c in counts().items()},
                  "checkpoint_after_interrupt.final_status": statuses[-1]})
