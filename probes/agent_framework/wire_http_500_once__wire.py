"""Agent Framework's own OpenAI-compatible client, at its defaults, against a plain loopback server whose first answer
is HTTP 500: the openai client ``OpenAIChatCompletionClient`` builds retries it by itself (``x-stainless-retry-count:
1``), announces a 600 s read timeout and sends no Idempotency-Key. The tool's schema as its own object declares it (a
tool made from a typed function) has lost the registry's ``minLength`` and ``additionalProperties`` and gained
pydantic's titles (the engine: 5 s, a key per logical call, the registry's schema verbatim).

Documented API only, through the kit (``_kit.py``): ``OpenAIChatCompletionClient(model=..., base_url=..., api_key=...)``
from ``agent_framework.openai`` (https://learn.microsoft.com/en-us/agent-framework/agents/providers/openai), a typed
``async`` function tool and its ``parameters()`` (https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools),
the kit's pass-through function middleware (there only to hand the tool its call id for the ledger).
"""

from _kit import declared, deliver, fixture_tools, wire_agent

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_http_500_once"
MODE = "wire"
SHOWS = ("wire.attempts", "wire.client_retries", "wire.idempotency_key_sent", "wire.read_timeout", "wire.schema_diff.get_weather", "step_statuses.0")

server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: [500]})
tools = fixture_tools(world(), "get_weather")
status = deliver(wire_agent(server.url, tools), "What is the weather in Paris?")
report(SCENARIO, {**wire_counts(server.requests, ["get_weather"], declared(tools)), "step_statuses.0": status})
