"""Pydantic AI keeps no checkpoint of its own: the documented session is the history written when a run returns,
so a process killed before the second model turn leaves nothing to resume from (the note of ``c1`` is written, the
run that wrote it is lost); the contract resumes at the model turn and finishes.

Documented API only, through the kit (``_kit.py``): the history written with ``ModelMessagesTypeAdapter`` when the run
returns (https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json,
https://pydantic.dev/docs/ai/core-concepts/message-history/#persisting-sessions), typed function tools, a scripted
``FunctionModel`` (which meets the scenario's model fault).
"""

from _kit import HISTORY, effects, model_counts, run_saved, support_agent
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, counts, in_child, report, world

SCENARIO = "crash_resume"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.resumable",
    "model.calls_per_turn",
    "model.unused_turns",
    "side_effects.c1.effects",
    "status",
)

SCRIPT = [[ToolCallPart("put_note", {"key": "followup", "text": "Call the customer back on Monday."}, tool_call_id="c1")],
          [ToolCallPart("get_weather", {"city": "Paris"}, tool_call_id="c2")],
          [TextPart("Saved; Paris is sunny.")]]

agent = support_agent(SCRIPT, world(Fault("model.kill_before_turn", turn=1)), "put_note", "get_weather")
killed = in_child(lambda: run_saved(agent, user_prompt="Save a follow-up note, then tell me the weather in Paris.")) == FAULT_EXIT_CODE
effects_before, resumable = effects(), HISTORY.exists()
status = "crashed" if killed else "completed"
if resumable:  # the resume: the saved history, no new prompt
    run_saved(agent)
    status = "completed"
report(SCENARIO, {"checkpoint_after_interrupt.interrupts.0.resumable": resumable,
                  "checkpoint_after_interrupt.interrupts.0.effects_before_resume": effects_before,
                  "checkpoint_after_interrupt.effects_after_resume": effects(),
                  "checkpoint_after_interrupt.final_status": status, "status": status,
                  **model_counts(SCRIPT, "calls_per_turn", "unused_turns"), "side_effects.c1.effects": counts()["c1"]["effects"]})
