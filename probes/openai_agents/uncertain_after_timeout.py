"""A ``TimeoutError`` raised after the approved transfer had its effect is an ordinary tool error to the SDK: the default
``failure_error_function`` answers the model with an error message and the run completes, with nothing recorded that
the call's outcome is uncertain (the engine stops with ``reconcile_required``).

Documented API only, through ``_kit.py``: ``@function_tool(needs_approval=True)``,
``result.interruptions``, ``result.to_state()``, ``state.approve(item)``, ``Runner.run(agent, state)``
(https://openai.github.io/openai-agents-python/human_in_the_loop/), the default ``failure_error_function``
(https://openai.github.io/openai-agents-python/tools/#handling-errors-in-function-tools).
"""

from _kit import approve, fixture_tools, outputs, run, status, support_agent

from harness.column_side.probes.kit import Fault, counts, report, world

SCENARIO = "uncertain_after_timeout"
SHOWS = ("side_effects.c1.effects", "step_statuses.0", "step_statuses.1")

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}}]},
          {"text": "Sent 25.00 from ACC-1 to ACC-2."}]

agent = support_agent(SCRIPT, fixture_tools(world(Fault("tool.timeout_after_effect", call_id="c1")))["transfer_funds"])
paused = run(agent, "Send 25.00 from ACC-1 to ACC-2.")
approved = run(agent, approve(paused, paused.interruptions[0]))
print("the model was told:", outputs(approved.new_items))
report(SCENARIO, {"step_statuses.0": status(paused), "step_statuses.1": status(approved), "side_effects.c1.effects": counts()["c1"]["effects"]})
