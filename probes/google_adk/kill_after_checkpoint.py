"""ADK has no intent checkpoint between deciding to run a call and running it: the scenario's kill point after the
engine's checkpoint (``engine.kill_after_checkpoint``) is never met, the note is written and the run completes in
one piece. The resume that follows continues the completed invocation and asks the model for a turn beyond its
script.

Documented API only, through the kit (``_kit.py``): a resumable ``App`` over ``SqliteSessionService`` resumed with
``run_async(invocation_id=..., new_message=None)`` (https://google.github.io/adk-docs/runtime/resume/,
https://google.github.io/adk-docs/sessions/session/), typed function tools
(https://google.github.io/adk-docs/tools-custom/function-tools/), a scripted ``BaseLlm``
(https://google.github.io/adk-docs/agents/models/). The run goes in a child process, as a killed one would.
"""

from _kit import call, deliver, effects, model_counts, resume, scripted_app, text, waiting

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "kill_after_checkpoint"
SHOWS = ("checkpoint_after_interrupt.effects_after_resume", "checkpoint_after_interrupt.interrupts", "model.calls_per_turn", "model.missing_turns",
         "step_statuses")

SCRIPT = [[call("c1", "put_note", key="followup", text="Call the customer back on Monday.")], [text("The note is saved.")]]

app = scripted_app(SCRIPT, world(Fault("engine.kill_after_checkpoint", call_id="c1")), "put_note")
code = in_child(lambda: deliver(app, "Save a follow-up note."))  # driver step 0, in a process the kill would end
statuses = ["crashed" if code == FAULT_EXIT_CODE else "error" if code else "awaiting_approval" if waiting() else "completed"]
statuses.append(resume(app))  # step 1: the resume of the completed invocation
report(SCENARIO, {"checkpoint_after_interrupt.effects_after_resume": effects(),
                  "checkpoint_after_interrupt.interrupts": [n for n, s in enumerate(statuses) if s == "crashed"],  # the killed steps: none
                  **model_counts(SCRIPT, "calls_per_turn", "missing_turns"), "step_statuses": statuses})
