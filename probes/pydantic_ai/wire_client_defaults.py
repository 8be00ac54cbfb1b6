"""Pydantic AI's OpenAI model, at its defaults, against a plain loopback server whose first answer is HTTP 500: the
openai client retries it by itself (``x-stainless-retry-count: 1``), announces a 600 s read timeout, sends no
Idempotency-Key. The ``Tool`` object's definition (``tool_def.parameters_json_schema``) lacks the registry's
``minLength``; the request marks the tool ``strict`` (the engine: 5 s, a key per logical call, the registry's schema
verbatim).

Documented API only: ``OpenAIChatModel`` with ``OpenAIProvider(base_url=..., api_key=...)`` for an OpenAI-compatible
endpoint (https://ai.pydantic.dev/models/compatible-apis/#other-endpoints), a typed function tool
(https://pydantic.dev/docs/ai/tools-toolsets/tools/), ``agent.run_sync``.
"""

import json

from pydantic_ai import Agent, RunContext, Tool
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from harness.column_side.probe_kit import FIXTURE_TOOLS, report, world
from harness.column_side.probe_wire import LoopbackModel, wire_counts

SCENARIO = "wire_http_500_once"
MODE = "wire"
SHOWS = ("wire.attempts", "wire.client_retries", "wire.idempotency_key_sent", "wire.read_timeout", "wire.schema_diff.get_weather", "step_statuses.0")

fixture = world()
server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: [500]})


async def get_weather(ctx: RunContext[None], city: str) -> str:
    return json.dumps(fixture.call("get_weather", ctx.tool_call_id, {"city": city}))


model = OpenAIChatModel("scripted-model", provider=OpenAIProvider(base_url=server.url, api_key="probe-key"))
weather = Tool(get_weather, description=FIXTURE_TOOLS["get_weather"].description)
agent = Agent(model, tools=[weather],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")
result = agent.run_sync("What is the weather in Paris?")
counts = wire_counts(server.requests, ["get_weather"], {"get_weather": weather.tool_def.parameters_json_schema})
report(SCENARIO, {**counts, "step_statuses.0": "completed" if result.output else "error"})
