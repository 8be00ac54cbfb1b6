"""The SDK's default model (``OpenAIResponsesModel`` on an ``AsyncOpenAI`` client) at its defaults, against a plain
loopback server whose first answer is HTTP 500: the openai client retries it by itself (``x-stainless-retry-count: 1``),
announces a 600 s read timeout and sends no Idempotency-Key. The ``@function_tool`` object's schema
(``params_json_schema``) has titles and lacks the registry's ``minLength``; the request marks the tool strict (the
engine: no client retries, 5 s, a key per logical call, the registry's schema verbatim).

Documented API only, through ``_kit.py``: ``OpenAIResponsesModel`` on your own
``AsyncOpenAI(base_url=..., api_key=...)`` (https://openai.github.io/openai-agents-python/models/), the ``@function_tool``
fixture tools (https://openai.github.io/openai-agents-python/tools/), ``Runner.run``.
"""

from _kit import fixture_tools, run, wire_agent

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_http_500_once"
MODE = "wire"
SHOWS = ("wire.attempts", "wire.client_retries", "wire.idempotency_key_sent", "wire.read_timeout", "wire.schema_diff.get_weather", "step_statuses.0")

server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: [500]})
get_weather = fixture_tools(world())["get_weather"]
result = run(wire_agent(server, get_weather), "What is the weather in Paris?")
print("final output:", result.final_output)
counts = wire_counts(server.requests, ["get_weather"], {"get_weather": get_weather.params_json_schema})
report(SCENARIO, {**counts, "step_statuses.0": "completed" if result.final_output else "error"})
