"""A tool that acts for the session's user takes the user from the run's context, but the model can still name another
user: ``list_orders`` reads the user from ``ToolContext.context`` (bob), and the model's extra ``username`` argument
(alice) is dropped by ``@function_tool``'s argument model, so the call runs (for bob) where the contract refuses it.

Documented API only: ``Runner.run(..., context=...)`` and a tool taking ``ToolContext`` first whose ``context`` is that
object (https://openai.github.io/openai-agents-python/context/, "Local context"; https://openai.github.io/openai-agents-python/tools/),
the scripted ``Model`` of ``_kit.py``.
"""

from _kit import outputs, run, side_effects, support_agent, tool_output
from agents import function_tool
from agents.tool_context import ToolContext

from harness.column_side.probes.kit import report, world

SCENARIO = "identity_scoped_tool"
SHOWS = (
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "side_effects.c2.effects",
    "side_effects.c2.executor_entries",
    "side_effects.c2.tool_entries",
)

fixture = world()
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "list_orders", "arguments": {}}]},
          {"tool_calls": [{"id": "c2", "name": "list_orders", "arguments": {"username": "alice"}}]},  # another user
          {"text": "You have two orders: ORD-2001 (pending) and ORD-2002. I cannot look up another customer's orders."}]


@function_tool
def list_orders(ctx: ToolContext[dict]) -> str:
    """Orders of the signed-in user (acts for the session's user: the user comes from the session)."""
    return tool_output(fixture, ctx, "list_orders", username=ctx.context["user"])


agent = support_agent(SCRIPT, list_orders, instructions="You are a support agent for a small shop. Use the tools when they help.")
result = run(agent, "What are my orders? And what did alice order?", context={"user": "bob"})
print("c2 answered:", *outputs(result.new_items, "c2"))
report(SCENARIO, side_effects("c1", "c2"))
