"""The SDK's default model (``OpenAIResponsesModel`` on an ``AsyncOpenAI`` client) at its defaults, against a plain
loopback server whose first answer is HTTP 500: the openai client retries it by itself (``x-stainless-retry-count: 1``),
announces a 600 s read timeout and sends no Idempotency-Key. The ``@function_tool`` object's schema
(``params_json_schema``) has titles and lacks the registry's ``minLength``; the request marks the tool strict (the
engine: no client retries, 5 s, a key per logical call, the registry's schema verbatim).

Documented API only: ``Agent`` with a ``Model`` built on your own ``AsyncOpenAI(base_url=..., api_key=...)``
(https://openai.github.io/openai-agents-python/models/), ``OpenAIResponsesModel``
(https://openai.github.io/openai-agents-python/ref/models/openai_responses/), ``@function_tool`` with a ``ToolContext``
first (https://openai.github.io/openai-agents-python/tools/, https://openai.github.io/openai-agents-python/context/),
``Runner.run`` (https://openai.github.io/openai-agents-python/running_agents/).
"""

import asyncio
import json

from agents import Agent, OpenAIResponsesModel, Runner, function_tool, set_tracing_disabled
from agents.tool_context import ToolContext
from openai import AsyncOpenAI

from harness.column_side.probe_kit import report, world
from harness.column_side.probe_wire import LoopbackModel, wire_counts

SCENARIO = "wire_http_500_once"
MODE = "wire"
SHOWS = ("wire.attempts", "wire.client_retries", "wire.idempotency_key_sent", "wire.read_timeout", "wire.schema_diff.get_weather", "step_statuses.0")

fixture = world()
server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: [500]})


@function_tool
def get_weather(ctx: ToolContext, city: str) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", ctx.tool_call_id, {"city": city}))


set_tracing_disabled(True)
model = OpenAIResponsesModel(model="scripted-model", openai_client=AsyncOpenAI(base_url=server.url, api_key="probe-key"))
agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
              model=model, tools=[get_weather])
result = asyncio.run(Runner.run(agent, "What is the weather in Paris?"))
print("final output:", result.final_output)
counts = wire_counts(server.requests, ["get_weather"], {"get_weather": get_weather.params_json_schema})
report(SCENARIO, {**counts, "step_statuses.0": "completed" if result.final_output else "error"})
