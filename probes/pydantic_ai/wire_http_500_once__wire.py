"""Pydantic AI's OpenAI model, at its defaults, against a plain loopback server whose first answer is HTTP 500: the
openai client retries it by itself (``x-stainless-retry-count: 1``), announces a 600 s read timeout, sends no
Idempotency-Key. The ``Tool`` object's definition (``tool_def.parameters_json_schema``) lacks the registry's
``minLength``; the request marks the tool ``strict`` (the engine: 5 s, a key per logical call, the registry's schema
verbatim).

Documented API only, through the kit (``_kit.py``): ``OpenAIChatModel`` with ``OpenAIProvider(base_url=..., api_key=...)``
for an OpenAI-compatible endpoint (https://ai.pydantic.dev/models/compatible-apis/#other-endpoints), a typed function tool
(https://pydantic.dev/docs/ai/tools-toolsets/tools/), ``agent.run_sync``.
"""

from _kit import fixture_tools, wire_agent

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_http_500_once"
MODE = "wire"
SHOWS = ("wire.attempts", "wire.client_retries", "wire.idempotency_key_sent", "wire.read_timeout", "wire.schema_diff.get_weather", "step_statuses.0")

server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: [500]})
weather = fixture_tools(world(), "get_weather")
result = wire_agent(server, weather).run_sync("What is the weather in Paris?")
counts = wire_counts(server.requests, ["get_weather"], {"get_weather": weather[0].tool_def.parameters_json_schema})
report(SCENARIO, {**counts, "step_statuses.0": "completed" if result.output else "error"})
