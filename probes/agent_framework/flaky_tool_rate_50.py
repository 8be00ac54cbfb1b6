"""Agent Framework gives up on tools after three model turns in a row whose calls failed: the notes ``c1``, ``c2`` and
``c3`` each raise before their effect, the framework hands each error to the model as the call's result (no retry),
and at the third it stops its tool loop for the request (its ``max_consecutive_errors_per_request``, 3 by default,
read here from the chat client's ``function_invocation_configuration``): the model is asked for one more turn, whose
call ``c4`` is never run, and the run completes with turns 4 and 5 (the fifth note, the summary) never asked for
(the contract retries each failed call under the same key and writes all five notes but ``c1``'s, whose failures
outlast its retries).

Documented API only, through the kit (``_kit.py``): the chat client's function invocation settings left at their
defaults (``FunctionInvocationConfiguration``, ``agent_framework/_tools.py``: "``max_consecutive_errors_per_request``:
How many consecutive errors before abandoning the tool loop for this request";
``FunctionInvocationLayer.function_invocation_configuration``), typed ``async`` function tools
(https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools), the kit's scripted chat client and
pass-through function middleware (there only to hand the tool its call id for the ledger).
"""

from _kit import call, deliver, every_side_effect, model_counts, support_agent, text

from harness.column_side.probes.kit import Fault, report, world

SCENARIO = "flaky_tool_rate_50"
SHOWS = ("model.calls_per_turn", "model.unused_turns", "side_effects", "status", "step_statuses", "constants.error_limit")

TICKETS = {1: "Card blocked abroad: unblocked, ask the customer to confirm the next payment.",
           2: "Duplicate direct debit: refund requested from the merchant, check again Friday.",
           3: "Address change: proof of address received, update after the compliance check.",
           4: "Overdraft fee dispute: fee waived once, explain the policy on the next call.",
           5: "Lost PIN: new PIN letter posted, follow up if it has not arrived in 7 days."}
SCRIPT = [*([call(f"c{n}", "put_note", key=f"followup-T-104{n}", text=words)] for n, words in TICKETS.items()),
          [text("I went through your five open tickets and logged a follow-up note on each; the tool results above show any note that could not be saved.")]]
FAULTS = [Fault("tool.raise_before_effect", call_id=c) for c in ("c1", "c1", "c1", "c2", "c3", "c5", "c5")]  # each fires once

agent = support_agent(SCRIPT, world(*FAULTS), "put_note")
status = deliver(agent, "Log a follow-up note on each of my five open tickets.")
report(SCENARIO, {"constants.error_limit": agent.client.function_invocation_configuration["max_consecutive_errors_per_request"],
                  **model_counts(SCRIPT, "calls_per_turn", "unused_turns"), "side_effects": every_side_effect(), "status": status, "step_statuses": [status]})
