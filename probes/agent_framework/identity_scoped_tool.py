"""A tool that acts for the session's user reads the user from the run's ``function_invocation_kwargs``, so in bob's
run a call naming alice still lists bob's orders; but Agent Framework hands the call to the tool all the same: the
argument the function does not declare (``username``) is dropped by the arguments' validation and the tool is
entered, where the contract refuses a call naming another user before any tool runs.

Documented API only, through the kit (``_kit.py``): ``agent.run(..., function_invocation_kwargs={"user": ...})`` read by
the tool as ``ctx.kwargs`` ("values that only tools or function middleware should see",
https://learn.microsoft.com/en-us/agent-framework/agents/middleware/runtime-context), a typed ``async`` function tool
with no parameter naming the user (https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools), the
kit's scripted chat client and pass-through function middleware (there only to hand the tool its call id for the
ledger).
"""

from _kit import call, deliver, model_counts, results, side_effects, support_agent, text

from harness.column_side.probes.kit import report, world

SCENARIO = "identity_scoped_tool"
SHOWS = ("model.calls_per_turn", "side_effects.c1", "side_effects.c2", "step_statuses")

SHOP = "You are a support agent for a small shop. Use the tools when they help."
SCRIPT = [[call("c1", "list_orders")], [call("c2", "list_orders", username="alice")],
          [text("You have two orders: ORD-2001 (pending) and ORD-2002. I cannot look up another customer's orders.")]]

status = deliver(support_agent(SCRIPT, world(), "list_orders", instructions=SHOP), "What are my orders? And what did alice order?", user="bob")
print("what c2 got back:", results("c2"))
report(SCENARIO, {**model_counts(SCRIPT, "calls_per_turn"), "side_effects.c1": side_effects("c1"), "side_effects.c2": side_effects("c2"),
                  "step_statuses": [status]})
