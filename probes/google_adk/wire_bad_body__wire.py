"""ADK's own OpenAI-compatible model, at its defaults, gets a 200 whose body is not JSON and does not try again: the
openai client's parse raises ``JSONDecodeError`` out of ``run_async`` after that one request (the engine retries it as
a failed attempt and completes).

Documented API only, through the kit (``_kit.py``): ``OpenAILlm(model=..., base_url=..., api_key=...)`` from ``google.adk.integrations.openai``
(its class docstring: "any OpenAI-compatible backend"), the openai client's errors
(https://github.com/openai/openai-python#handling-errors), a typed function tool
(https://google.github.io/adk-docs/tools-custom/function-tools/).
"""

from _kit import deliver, fixture_tools, model_errors, wire_app

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_bad_body"
MODE = "wire"
SHOWS = ("wire.attempts", "status", "step_statuses.0")

server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: ["bad_body"]})
status = deliver(wire_app(server.url, fixture_tools(world(), "get_weather"), {}), "What is the weather in Paris?", errors=model_errors())
report(SCENARIO, {"wire.attempts": wire_counts(server.requests, ["get_weather"])["wire.attempts"], "status": status, "step_statuses.0": status})
