"""ADK keeps no record of the call ids it has run: a model turn that repeats an earlier call's id (``c1``) runs the
write again, a second effect under the same id (the contract replays the first result).

Documented API only, through the kit (``_kit.py``): a typed function tool whose ``tool_context.function_call_id``
names the call (https://google.github.io/adk-docs/tools-custom/function-tools/), a scripted ``BaseLlm`` (https://google.github.io/adk-docs/agents/models/).
"""

from _kit import call, deliver, scripted_app, side_effects, text

from harness.column_side.probes.kit import report, world

SCENARIO = "duplicate_call_id"
SHOWS = ("idempotent_replay.c1.effects", "side_effects.c1")

NOTE = {"key": "followup", "text": "Call the customer back on Monday."}
SCRIPT = [[call("c1", "put_note", **NOTE)], [call("c1", "put_note", **NOTE)], [text("The note is saved.")]]

deliver(scripted_app(SCRIPT, world(), "put_note"), "Save a follow-up note.")
report(SCENARIO, {"idempotent_replay.c1.effects": side_effects("c1")["effects"], "side_effects.c1": side_effects("c1")})
