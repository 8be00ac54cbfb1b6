"""ADK's resumable app resumes a process killed before the second model turn where it stopped: the note of ``c1``
is not written again and the run completes, as the contract does. What differs is what the model is sent: ADK
appends its own sentence, ``You are an agent. Your internal name is "fixture_agent".``, to the agent's instruction
in every request (the script and the probe wrote neither).

Documented API only, through the kit (``_kit.py``): an ``LlmAgent`` with ``instruction=...``
(https://google.github.io/adk-docs/agents/llm-agents/), a resumable ``App`` over ``SqliteSessionService`` resumed with
``run_async(invocation_id=..., new_message=None)`` (https://google.github.io/adk-docs/runtime/resume/,
https://google.github.io/adk-docs/sessions/session/), typed function tools
(https://google.github.io/adk-docs/tools-custom/function-tools/), a scripted ``BaseLlm`` that logs the system
instruction of each request and meets the scenario's model fault (https://google.github.io/adk-docs/agents/models/).
"""

from _kit import call, deliver, effects, model_counts, position, resume, scripted_app, side_effects, text

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "crash_resume"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "model.calls_per_turn",
    "model.injected",
    "model.unused_turns",
    "side_effects.c1",
    "step_statuses",
)

SCRIPT = [[call("c1", "put_note", key="followup", text="Call the customer back on Monday.")], [call("c2", "get_weather", city="Paris")],
          [text("Saved; Paris is sunny.")]]

app = scripted_app(SCRIPT, world(Fault("model.kill_before_turn", turn=1)), "put_note", "get_weather")
killed = in_child(lambda: deliver(app, "Save a follow-up note, then tell me the weather in Paris.")) == FAULT_EXIT_CODE  # driver step 0
before, (at, _) = effects(), position()  # what the killed step left: c1's note, then the next model turn
statuses = ["crashed" if killed else "not killed", resume(app)]  # step 1: the resume asks for turn 1 again and finishes
interrupt = "checkpoint_after_interrupt.interrupts.0"
report(SCENARIO, {f"{interrupt}.effects_before_resume": before, f"{interrupt}.resume_position": at,
                  "checkpoint_after_interrupt.effects_after_resume": effects(),
                  "checkpoint_after_interrupt.final_status": statuses[1], **model_counts(SCRIPT, "calls_per_turn", "injected", "unused_turns"),
                  "side_effects.c1": side_effects("c1"), "step_statuses": statuses})
