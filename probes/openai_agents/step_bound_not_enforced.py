"""Nothing in the SDK knows the scenario's step bound (3 model turns): ``Runner.run``'s default ``max_turns`` is 10, so
the model is called until its script runs out (calls c4 and c5 ran) and the run completes instead of stopping.

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool`` with a ``ToolContext`` first (https://openai.github.io/openai-agents-python/tools/,
https://openai.github.io/openai-agents-python/context/), ``Runner.run`` with its default ``max_turns``
(https://openai.github.io/openai-agents-python/running_agents/), output items from ``agents.testing``
(https://openai.github.io/openai-agents-python/testing/).
"""

import asyncio
from collections import Counter

from agents import Agent, MaxTurnsExceeded, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "step_bound"
SHOWS = ("model.calls_per_turn", "side_effects.c4.executor_entries", "side_effects.c5.executor_entries", "status")

fixture = world()
SCRIPT = [{"tool_calls": [{"id": f"c{n}", "name": "get_weather", "arguments": {"city": "Paris"}}]} for n in range(1, 6)]
asked = Counter()  # model calls per turn


class Scripted(Model):
    """Answers the script's turn k, where k is the number of model turns already in its input."""

    async def get_response(self, system_instructions, input, *args, **kwargs) -> ModelResponse:
        turn = sum(1 for item in input if item.get("type") == "function_call" or item.get("role") == "assistant")
        asked[str(turn)] += 1
        step = SCRIPT[turn] if turn < len(SCRIPT) else {"text": "[scripted model: no scripted turn left]"}
        calls = [function_call(c["name"], c["arguments"], call_id=c["id"]) for c in step.get("tool_calls", [])]
        return ModelResponse(output=calls or [assistant_message(step["text"])], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


@function_tool
def get_weather(ctx: ToolContext, city: str) -> str:
    """Current weather for a city."""
    return str(fixture.call("get_weather", ctx.tool_call_id, {"city": city}))


set_tracing_disabled(True)
agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
              model=Scripted(), tools=[get_weather])
try:
    asyncio.run(Runner.run(agent, "Keep checking the weather in Paris."))  # max_turns left at its default
    status = "completed"
except MaxTurnsExceeded:
    status = "stopped_max_steps"

ledger = counts()
report(SCENARIO, {"model.calls_per_turn": dict(asked), "status": status,
                  **{f"side_effects.{c}.executor_entries": ledger[c]["executor_entries"] for c in ("c4", "c5")}})
