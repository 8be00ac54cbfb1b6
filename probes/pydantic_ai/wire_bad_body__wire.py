"""Pydantic AI's OpenAI model, at its defaults, gets a 200 whose body is not JSON and does not try again: the run
raises ``ModelAPIError`` after that one request (the engine retries it as a failed attempt and completes).

Documented API only, through the kit (``_kit.py``): ``OpenAIChatModel`` with ``OpenAIProvider(base_url=..., api_key=...)``
(https://ai.pydantic.dev/models/compatible-apis/#other-endpoints), ``ModelAPIError`` (https://ai.pydantic.dev/api/exceptions/),
a typed function tool (https://pydantic.dev/docs/ai/tools-toolsets/tools/).
"""

from _kit import fixture_tools, outcome, wire_agent

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_bad_body"
MODE = "wire"
SHOWS = ("wire.attempts", "step_statuses.0")

server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: ["bad_body"]})
status = outcome(wire_agent(server, fixture_tools(world(), "get_weather")), "What is the weather in Paris?")
report(SCENARIO, {"wire.attempts": wire_counts(server.requests, ["get_weather"])["wire.attempts"], "step_statuses.0": status})
