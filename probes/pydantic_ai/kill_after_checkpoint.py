"""Pydantic AI writes nothing before it runs a tool (the documented session is the history written when a run
returns), so the kill scheduled after an intent checkpoint has no moment to fire: the first run completes, there is
no interrupt, and the resume of the finished history completes too (the contract dies after its intent record and
resumes before the executor).

Documented API only, through the kit (``_kit.py``): the history written with ``ModelMessagesTypeAdapter`` when a run
returns and resumed with no new prompt (https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json,
https://pydantic.dev/docs/ai/core-concepts/message-history/#persisting-sessions), typed function tools, a scripted ``FunctionModel``.
"""

from _kit import HISTORY, effects, run_saved, support_agent, tool_output
from pydantic_ai import RunContext, Tool
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "kill_after_checkpoint"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts",
    "step_statuses",
)

fixture = world(Fault("engine.kill_after_checkpoint", call_id="c1"))  # only an intent checkpoint could fire it
SCRIPT = [[ToolCallPart("put_note", {"key": "followup", "text": "Call the customer back on Monday."}, tool_call_id="c1")],
          [TextPart("The note is saved.")]]


async def put_note(ctx: RunContext[None], key: str, text: str) -> str:
    """Store a note under a key."""
    print(f"put_note entered; anything saved before it: {HISTORY.exists()}", flush=True)
    return tool_output(fixture, ctx, "put_note", key=key, text=text)


agent = support_agent(SCRIPT, fixture, Tool(put_note))
exits = [in_child(lambda: run_saved(agent, user_prompt="Save a follow-up note.")), in_child(lambda: run_saved(agent))]  # the run, then the resume
statuses = ["crashed" if code == FAULT_EXIT_CODE else "completed" if code == 0 else "error" for code in exits]
report(SCENARIO, {"checkpoint_after_interrupt.interrupts": [i for i, s in enumerate(statuses) if s == "crashed"],
                  "checkpoint_after_interrupt.effects_after_resume": effects(),
                  "checkpoint_after_interrupt.final_status": statuses[-1], "step_statuses": statuses})
