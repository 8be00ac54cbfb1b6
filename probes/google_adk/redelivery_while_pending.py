"""ADK has no event id: the same inbound message delivered again while a transfer waits for its confirmation (a
retried webhook) is a new invocation, in which the model is asked for its next turn and the run completes with the
transfer still unanswered; the confirmation that follows, sent with the first invocation, runs the transfer and asks
the model for that turn again. The contract ignores the second delivery.

Documented API only, through the kit (``_kit.py``): ``FunctionTool(..., require_confirmation=True)`` answered with the
``adk_request_confirmation`` call's ``FunctionResponse`` sent with its ``invocation_id``
(https://google.github.io/adk-docs/tools-custom/confirmation/); a resumable ``App`` over ``SqliteSessionService``
(https://google.github.io/adk-docs/runtime/resume/, https://google.github.io/adk-docs/sessions/session/); a scripted
``BaseLlm`` (https://google.github.io/adk-docs/agents/models/).
"""

from _kit import answer, call, deliver, model_counts, scripted_app, side_effects, text

from harness.column_side.probes.kit import report, world

SCENARIO = "redelivery_while_pending"
SHOWS = ("idempotent_replay.c1.effects", "model.calls_per_turn", "side_effects.c1", "step_statuses")

PROMPT = "Send 25.00 from ACC-1 to ACC-2."
SCRIPT = [[call("c1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500)], [text("Sent 25.00 from ACC-1 to ACC-2.")]]

app = scripted_app(SCRIPT, world(), "transfer_funds")
statuses = [deliver(app, PROMPT), deliver(app, PROMPT)]  # the event e1 (c1 waits), then the same event again
statuses.append(answer(app, {"c1": True}))  # the approval of c1, with the invocation that asked
report(SCENARIO, {**model_counts(SCRIPT, "calls_per_turn"), "idempotent_replay.c1.effects": side_effects("c1")["effects"],
                  "side_effects.c1": side_effects("c1"), "step_statuses": statuses})
