"""Agent Framework has no event id: the same inbound message delivered again while a transfer waits for its approval
(a retried webhook) is a new run on the session, in which the waiting call is left out of what the model is sent, so
the model is asked for its first turn again and the transfer is asked about anew; the approval that follows runs it
once and asks the model for a turn beyond its script. The contract ignores the second delivery.

Documented API only, through the kit (``_kit.py``): ``tool(..., approval_mode="always_require")``,
``response.user_input_requests`` answered with ``request.to_function_approval_response(approved=True)``
(https://learn.microsoft.com/en-us/agent-framework/agents/tools/tool-approval), ``agent.run(message, session=...)`` on
an ``AgentSession`` saved with ``to_dict()`` after every run (https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session);
the kit's scripted chat client and pass-through function middleware (there only to hand the tool its call id for the
ledger).
"""

from _kit import answer, call, deliver, model_counts, pending, results, side_effects, support_agent, text

from harness.column_side.probes.kit import report, world

SCENARIO = "redelivery_while_pending"
SHOWS = ("idempotent_replay.c1.effects", "idempotent_replay.c1.results", "model.calls_per_turn", "model.missing_turns", "model.unused_turns",
         "pre_approval_state.pauses.1.pending", "side_effects.c1", "step_statuses")

PROMPT = "Send 25.00 from ACC-1 to ACC-2."
SCRIPT = [[call("c1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500)], [text("Sent 25.00 from ACC-1 to ACC-2.")]]

agent = support_agent(SCRIPT, world(), "transfer_funds")
statuses = [deliver(agent, PROMPT), deliver(agent, PROMPT)]  # the event e1 (c1 waits), then the same event again
again = pending()
statuses.append(answer(agent, {"c1": True}))  # the approval of c1
report(SCENARIO, {**model_counts(SCRIPT, "calls_per_turn", "missing_turns", "unused_turns"), "idempotent_replay.c1.effects": side_effects("c1")["effects"],
                  "idempotent_replay.c1.results": results("c1"), "pre_approval_state.pauses.1.pending": again, "side_effects.c1": side_effects("c1"),
                  "step_statuses": statuses})
