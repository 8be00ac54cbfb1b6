"""The Agents SDK has no deny policy: a tool the contract always denies is an ordinary function tool, and it runs
when the model calls it (``needs_approval`` is the only gate, and it is off by default).

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool`` with a ``ToolContext`` first (https://openai.github.io/openai-agents-python/tools/,
https://openai.github.io/openai-agents-python/context/), ``Runner.run``
(https://openai.github.io/openai-agents-python/running_agents/), output items built with ``agents.testing``'s
``function_call`` / ``assistant_message`` (https://openai.github.io/openai-agents-python/testing/).
"""

import asyncio

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "always_deny"
SHOWS = ("side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries")

fixture = world()
SCRIPT = [
    {"tool_calls": [{"id": "c1", "name": "drop_database", "arguments": {"name": "prod"}}]},
    {"text": "I am not allowed to drop databases."},
]


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
def drop_database(ctx: ToolContext, name: str) -> str:
    """Drop a database (always denied by the contract)."""
    return str(fixture.call("drop_database", ctx.tool_call_id, {"name": name}))


set_tracing_disabled(True)
agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
              model=Scripted(), tools=[drop_database])
asyncio.run(Runner.run(agent, "Drop the prod database."))

ledger = counts()
report(SCENARIO, {f"side_effects.c1.{k}": ledger["c1"][k] for k in ("tool_entries", "executor_entries", "effects")})
