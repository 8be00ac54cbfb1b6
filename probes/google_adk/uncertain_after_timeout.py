"""ADK does not stop for reconciliation when an approved transfer's outcome is unknown: the transfer times out after
its effect landed, and with no ``on_tool_error_callback`` ADK re-raises the ``TimeoutError`` out of the run, which
ends in it with the money moved and nothing recorded as uncertain; the contract stops the run for an explicit
reconciliation (ADK has no such step: the scenario's reconcile has no API to go to).

Documented API only, through the kit (``_kit.py``): ``FunctionTool(..., require_confirmation=True)`` answered with the
``adk_request_confirmation`` call's ``FunctionResponse`` sent with its ``invocation_id``
(https://google.github.io/adk-docs/tools-custom/confirmation/), no tool callback set
(https://google.github.io/adk-docs/callbacks/types-of-callbacks/#tool-execution-callbacks), a scripted ``BaseLlm``
(https://google.github.io/adk-docs/agents/models/).
"""

from _kit import answer, call, deliver, model_counts, scripted_app, side_effects, text

from harness.column_side.probes.kit import Fault, report, world

SCENARIO = "uncertain_after_timeout"
SHOWS = ("model.unused_turns", "side_effects.c1", "status", "step_statuses.0", "step_statuses.1", "constants.tool_error")

SCRIPT = [[call("c1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500)], [text("Sent 25.00 from ACC-1 to ACC-2.")]]

app = scripted_app(SCRIPT, world(Fault("tool.timeout_after_effect", call_id="c1")), "transfer_funds")
statuses = [deliver(app, "Send 25.00 from ACC-1 to ACC-2.")]  # driver step 0: c1 waits
statuses.append(answer(app, {"c1": True}, errors=(TimeoutError,)))  # step 1: approve; c1 moves the money, then times out
report(SCENARIO, {"constants.tool_error": "raise" if statuses[1] == "error" else "message", **model_counts(SCRIPT, "unused_turns"),
                  "side_effects.c1": side_effects("c1"), "status": statuses[1], "step_statuses.0": statuses[0], "step_statuses.1": statuses[1]})
