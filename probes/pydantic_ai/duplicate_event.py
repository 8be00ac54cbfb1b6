"""Pydantic AI has no event id: the same inbound message delivered again (a retried webhook) is a new user turn on
the saved history, and the model is asked again, beyond its script (the contract ignores the second delivery).

Documented API only, through the kit (``_kit.py``): the history saved with ``ModelMessagesTypeAdapter`` and passed back
as ``message_history`` (https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json),
typed function tools, a scripted ``FunctionModel``.
"""

from _kit import model_counts, run_saved, status, support_agent
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "duplicate_event"
SHOWS = ("idempotent_replay.c1.effects", "model.calls_per_turn", "model.missing_turns", "step_statuses")

SCRIPT = [[ToolCallPart("put_note", {"key": "followup", "text": "Call the customer back on Monday."}, tool_call_id="c1")],
          [TextPart("The note is saved.")]]

agent = support_agent(SCRIPT, world(), "put_note")
statuses = [status(run_saved(agent, user_prompt="Save a follow-up note.").output) for _delivery in range(2)]  # the event e1, then the same event again
report(SCENARIO, {**model_counts(SCRIPT, "calls_per_turn", "missing_turns"), "idempotent_replay.c1.effects": counts()["c1"]["effects"],
                  "step_statuses": statuses})
