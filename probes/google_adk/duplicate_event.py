"""ADK has no event id: the same inbound message delivered again (a retried webhook) is a new invocation on the
session, and the model is asked for a turn beyond its script (the contract ignores the second delivery).

Documented API only, through the kit (``_kit.py``): ``runner.run_async(..., new_message=...)`` on a session kept by
``SqliteSessionService`` (https://google.github.io/adk-docs/sessions/session/), typed function tools
(https://google.github.io/adk-docs/tools-custom/function-tools/), a scripted ``BaseLlm``
(https://google.github.io/adk-docs/agents/models/).
"""

from _kit import call, deliver, model_counts, scripted_app, side_effects, text

from harness.column_side.probes.kit import report, world

SCENARIO = "duplicate_event"
SHOWS = ("idempotent_replay.c1.effects", "model.calls_per_turn", "model.missing_turns", "step_statuses")

SCRIPT = [[call("c1", "put_note", key="followup", text="Call the customer back on Monday.")], [text("The note is saved.")]]

app = scripted_app(SCRIPT, world(), "put_note")
statuses = [deliver(app, "Save a follow-up note.") for _delivery in range(2)]  # the event e1, then the same event again
report(SCENARIO, {**model_counts(SCRIPT, "calls_per_turn", "missing_turns"), "idempotent_replay.c1.effects": side_effects("c1")["effects"],
                  "step_statuses": statuses})
