"""Agent Framework does not stop when an approved transfer's outcome is unknown: the transfer times out after its
effect landed, its tool dispatch hands the ``TimeoutError`` to the model as the call's result (``Error: Function
failed.``), and the run completes with the money moved and nothing recorded as uncertain; the contract stops the run
for an explicit reconciliation (Agent Framework has no such step: the scenario's reconcile has no API to go to).

Documented API only, through the kit (``_kit.py``): ``tool(..., approval_mode="always_require")`` answered with
``request.to_function_approval_response(approved=True)`` (https://learn.microsoft.com/en-us/agent-framework/agents/tools/tool-approval),
the function invocation settings at their defaults (``agent_framework/_tools.py``, ``_function_execution_error_result``),
an ``AgentSession`` saved with ``to_dict()`` (https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session);
the kit's scripted chat client and pass-through function middleware (there only to hand the tool its call id for the
ledger).
"""

from _kit import answer, call, deliver, model_counts, results, side_effects, support_agent, text

from harness.column_side.probes.kit import Fault, report, world

SCENARIO = "uncertain_after_timeout"
SHOWS = ("model.unused_turns", "side_effects.c1", "status", "step_statuses.0", "step_statuses.1", "constants.tool_error")

SCRIPT = [[call("c1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500)], [text("Sent 25.00 from ACC-1 to ACC-2.")]]

agent = support_agent(SCRIPT, world(Fault("tool.timeout_after_effect", call_id="c1")), "transfer_funds")
statuses = [deliver(agent, "Send 25.00 from ACC-1 to ACC-2.")]  # driver step 0: c1 waits
statuses.append(answer(agent, {"c1": True}, errors=(TimeoutError,)))  # step 1: approve; c1 moves the money, then times out
print("what the model got for c1:", results("c1"))
# step 2, reconcile c1: Agent Framework has no such step
report(SCENARIO, {"constants.tool_error": "raise" if statuses[1] == "error" else "message", **model_counts(SCRIPT, "unused_turns"),
                  "side_effects.c1": side_effects("c1"), "status": statuses[1], "step_statuses.0": statuses[0], "step_statuses.1": statuses[1]})
