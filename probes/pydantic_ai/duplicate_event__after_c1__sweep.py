"""The crash sweep's worst case for Pydantic AI: the process dies right after a tool's effect, the resume finds nothing
to resume from, and the same event delivered again writes the note a second time. The documented session is the
history written when a run returns, so the killed run left none; with no event id, the delivery again is a new run of
the user's message from the start: the model asks for ``c1`` again and the note is written twice. The uninterrupted run
wrote it once: its delivery again went on from the saved history, where ``c1`` had been answered.

Documented API only, through the kit (``_kit.py``): the history written with ``ModelMessagesTypeAdapter`` when the run
returns and passed back as ``message_history``
(https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json), typed function
tools, a scripted ``FunctionModel``.
"""

from _kit import HISTORY, run_saved, support_agent
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, counts, in_child, report, world

SCENARIO = "duplicate_event__after_c1"
MODE = "sweep"
SHOWS = ("side_effects.c1.effects",)

SCRIPT = [[ToolCallPart("put_note", {"key": "followup", "text": "Call the customer back on Monday."}, tool_call_id="c1")],
          [TextPart("The note is saved.")]]

agent = support_agent(SCRIPT, world(Fault("tool.kill_after_effect", call_id="c1")), "put_note")
assert in_child(lambda: run_saved(agent, user_prompt="Save a follow-up note.")) == FAULT_EXIT_CODE  # the event e1, killed after c1's effect
assert not HISTORY.exists()  # the resume: nothing saved to resume from
run_saved(agent, user_prompt="Save a follow-up note.")  # the same event delivered again
report(SCENARIO, {"side_effects.c1.effects": counts()["c1"]["effects"]})
