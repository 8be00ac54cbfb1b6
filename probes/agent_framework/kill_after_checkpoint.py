"""Agent Framework has no intent checkpoint between deciding to run a call and running it: the scenario's kill point
after the engine's checkpoint (``engine.kill_after_checkpoint``) is never met, the note is written and the run
completes in one piece. The resume that follows (a run on the saved session with no new input) asks the model for a
turn beyond its script.

Documented API only, through the kit (``_kit.py``): an ``AgentSession`` saved with ``to_dict()`` and resumed with
``agent.run(None, session=...)`` (https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session), typed
``async`` function tools (https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools), the kit's
scripted chat client and pass-through function middleware (there only to hand the tool its call id for the ledger).
The run goes in a child process, as a killed one would.
"""

from _kit import call, deliver, effects, model_counts, position, resume, support_agent, text, waiting

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "kill_after_checkpoint"
SHOWS = ("checkpoint_after_interrupt.effects_after_resume", "checkpoint_after_interrupt.final_status", "checkpoint_after_interrupt.interrupts",
         "model.calls_per_turn", "model.missing_turns", "step_statuses")

SCRIPT = [[call("c1", "put_note", key="followup", text="Call the customer back on Monday.")], [text("The note is saved.")]]

agent = support_agent(SCRIPT, world(Fault("engine.kill_after_checkpoint", call_id="c1")), "put_note")
code = in_child(lambda: deliver(agent, "Save a follow-up note."))  # driver step 0, in a process the kill would end
statuses = ["crashed" if code == FAULT_EXIT_CODE else "error" if code else "awaiting_approval" if waiting() else "completed"]
print("where the resume continues:", position())
statuses.append(resume(agent))  # step 1: the resume of the completed run
report(SCENARIO, {"checkpoint_after_interrupt.effects_after_resume": effects(), "checkpoint_after_interrupt.final_status": statuses[-1],
                  "checkpoint_after_interrupt.interrupts": [n for n, s in enumerate(statuses) if s == "crashed"],  # the killed steps: none
                  **model_counts(SCRIPT, "calls_per_turn", "missing_turns"), "step_statuses": statuses})
