"""Pydantic AI's OpenAI model, at its defaults, gets HTTP 503 with ``Retry-After: 2.5``: the openai client waits
and retries, and the run completes (the contract gives up at once on a Retry-After over 2 s: the engine's step ends
``model_unavailable``).

Documented API only, through the kit (``_kit.py``): ``OpenAIChatModel`` with ``OpenAIProvider(base_url=..., api_key=...)``
(https://ai.pydantic.dev/models/compatible-apis/#other-endpoints), a typed function tool
(https://pydantic.dev/docs/ai/tools-toolsets/tools/). The scenario's resume (driver step 1) finds the run completed.
"""

from _kit import fixture_tools, outcome, wire_agent

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel

SCENARIO = "wire_retry_after_too_long"
MODE = "wire"
SHOWS = ("step_statuses.0",)

server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: [(503, 2.5)]})
report(SCENARIO, {"step_statuses.0": outcome(wire_agent(server, fixture_tools(world(), "get_weather")), "What is the weather in Paris?")})
