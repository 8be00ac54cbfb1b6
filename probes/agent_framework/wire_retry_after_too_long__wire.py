"""Agent Framework's own OpenAI-compatible client, at its defaults, gets HTTP 503 with ``Retry-After: 2.5``: the openai
client ``OpenAIChatCompletionClient`` builds waits and retries, and the run completes (the contract gives up at once on
a Retry-After over 2 s: the engine's step ends ``model_unavailable``).

Documented API only, through the kit (``_kit.py``): ``OpenAIChatCompletionClient(model=..., base_url=..., api_key=...)``
from ``agent_framework.openai`` (https://learn.microsoft.com/en-us/agent-framework/agents/providers/openai), a typed
``async`` function tool (https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools). The scenario's
resume (driver step 1) is left out: it finds the run completed.
"""

from _kit import deliver, fixture_tools, model_errors, wire_agent

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_retry_after_too_long"
MODE = "wire"
SHOWS = ("wire.client_retries", "wire.idempotency_key_sent", "wire.read_timeout", "step_statuses.0")

server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: [(503, 2.5)]})
status = deliver(wire_agent(server.url, fixture_tools(world(), "get_weather")), "What is the weather in Paris?", errors=model_errors())
counts = wire_counts(server.requests, ["get_weather"])
report(SCENARIO, {**{k: counts[k] for k in SHOWS if k in counts}, "step_statuses.0": status})
