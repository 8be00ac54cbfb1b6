"""A tool that acts for the session's user takes the user from the run's context, but the model can still name another
user: ``list_orders`` reads the user from ``ToolContext.context`` (bob), and the model's extra ``username`` argument
(alice) is dropped by ``@function_tool``'s argument model, so the call runs (for bob) where the contract refuses it.

Documented API only: ``Runner.run(..., context=...)`` and a tool taking ``ToolContext`` first whose ``context`` is that
object (https://openai.github.io/openai-agents-python/context/, "Local context"; https://openai.github.io/openai-agents-python/tools/),
``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/), output items from
``agents.testing`` (https://openai.github.io/openai-agents-python/testing/).
"""

import asyncio
import json

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse, ToolCallOutputItem
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage

from harness.column_side.probe_kit import counts, report, world

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


class Scripted(Model):
    """Answers the script's turn k, where k is the number of model turns already in its input."""

    async def get_response(self, system_instructions, input, *args, **kwargs) -> ModelResponse:
        turn = sum(1 for item in input if item.get("type") == "function_call" or item.get("role") == "assistant")
        step = SCRIPT[turn]
        calls = [function_call(c["name"], c["arguments"], call_id=c["id"]) for c in step.get("tool_calls", [])]
        return ModelResponse(output=calls or [assistant_message(step["text"])], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


@function_tool
def list_orders(ctx: ToolContext[dict]) -> str:
    """Orders of the signed-in user (acts for the session's user: the user comes from the session)."""
    return json.dumps(fixture.call("list_orders", ctx.tool_call_id, {"username": ctx.context["user"]}))


set_tracing_disabled(True)
agent = Agent(name="support", instructions="You are a support agent for a small shop. Use the tools when they help.",
              model=Scripted(), tools=[list_orders])
result = asyncio.run(Runner.run(agent, "What are my orders? And what did alice order?", context={"user": "bob"}))
print("c2 answered:", next(i.output for i in result.new_items if isinstance(i, ToolCallOutputItem) and i.raw_item["call_id"] == "c2"))

ledger = counts()
report(SCENARIO, {f"side_effects.{c}.{k}": ledger[c][k] for c in ("c1", "c2") for k in ("tool_entries", "executor_entries", "effects")})
