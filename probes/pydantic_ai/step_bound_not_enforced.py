"""Pydantic AI's only step bound is ``UsageLimits.request_limit`` (its pinned default is in the evidence's ``constants``): with the
defaults a model that keeps calling a tool is asked for all five scripted turns and once more, and the run
completes (the scenario's bound is three model turns, a terminal state with a reason).

Documented API only: ``UsageLimits`` left at its defaults (https://pydantic.dev/docs/ai/core-concepts/agent/#usage-limits),
typed function tools (https://pydantic.dev/docs/ai/tools-toolsets/tools/), a scripted ``FunctionModel``
(https://pydantic.dev/docs/ai/guides/testing/).
"""

import json
from collections import Counter

from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "step_bound"
SHOWS = (
    "model.calls_per_turn",
    "model.missing_turns",
    "side_effects.c1.executor_entries",
    "side_effects.c2.executor_entries",
    "side_effects.c3.executor_entries",
    "side_effects.c4.executor_entries",
    "side_effects.c5.executor_entries",
    "status",
)

fixture = world()
script = [[ToolCallPart("get_weather", {"city": "Paris"}, tool_call_id=f"c{n}")] for n in range(1, 6)]
asked: Counter[int] = Counter()


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The script's turn is the number of model responses in the conversation so far."""
    turn = sum(isinstance(m, ModelResponse) for m in messages)
    asked[turn] += 1
    return ModelResponse(parts=script[turn] if turn < len(script) else [TextPart("[no scripted turn left]")])


async def get_weather(ctx: RunContext[None], city: str) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", ctx.tool_call_id, {"city": city}))


agent = Agent(FunctionModel(scripted), tools=[get_weather],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")
result = agent.run_sync("Keep checking the weather in Paris.")

ran = {f"side_effects.{call_id}.executor_entries": entry["executor_entries"] for call_id, entry in counts().items()}
report(SCENARIO, ran | {"model.calls_per_turn": {str(t): n for t, n in sorted(asked.items())},
                  "model.missing_turns": sorted(t for t in asked if t >= len(script)),
                  "status": "completed" if isinstance(result.output, str) else type(result.output).__name__})
