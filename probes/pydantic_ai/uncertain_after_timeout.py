"""Pydantic AI has no uncertain outcome: an approved transfer that times out after its effect raises out of the
run, which ends in an error instead of stopping for reconciliation; the model is never told (the contract stops in
``reconcile_required`` and never retries by itself).

Documented API only, through the kit (``_kit.py``): ``requires_approval=True`` and a second run with ``DeferredToolResults``
(https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval); a tool's exception
propagates (https://pydantic.dev/docs/ai/tools-toolsets/tools-advanced/#tool-retries); a scripted ``FunctionModel``.
"""

from _kit import approve_all, decide, model_counts, status, support_agent
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import Fault, counts, report, world

SCENARIO = "uncertain_after_timeout"
SHOWS = (
    "model.calls_per_turn",
    "model.unused_turns",
    "side_effects.c1.effects",
    "status",
    "step_statuses.0",
    "step_statuses.1",
)

SCRIPT = [[ToolCallPart("transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}, tool_call_id="c1")],
          [TextPart("Sent 25.00 from ACC-1 to ACC-2.")]]

agent = support_agent(SCRIPT, world(Fault("tool.timeout_after_effect", call_id="c1")), "transfer_funds")
paused = agent.run_sync("Send 25.00 from ACC-1 to ACC-2.")
statuses = [status(paused.output)]
try:
    decide(agent, paused.all_messages(), approve_all(paused.output))
    statuses.append("completed")
except TimeoutError as error:  # the measurement: the tool's timeout ends the run
    statuses.append("error")
    print(f"run ended by TimeoutError: {error}")
report(SCENARIO, {**model_counts(SCRIPT, "calls_per_turn", "unused_turns"), "side_effects.c1.effects": counts()["c1"]["effects"],
                  "step_statuses.0": statuses[0], "step_statuses.1": statuses[1], "status": statuses[-1]})
