"""Agent Framework's own OpenAI-compatible client, at its defaults, gets a 200 whose body is not JSON and does not try
again: the openai client's parse fails (``JSONDecodeError``), ``OpenAIChatCompletionClient`` wraps it in
``ChatClientException`` and the run ends in it after that one request (the engine retries it as a failed attempt and
completes).

Documented API only, through the kit (``_kit.py``): ``OpenAIChatCompletionClient(model=..., base_url=..., api_key=...)``
from ``agent_framework.openai`` (https://learn.microsoft.com/en-us/agent-framework/agents/providers/openai), its error
``agent_framework.exceptions.ChatClientException``
(https://learn.microsoft.com/en-us/python/api/agent-framework-core/agent_framework.exceptions), a typed ``async``
function tool (https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools).
"""

from _kit import deliver, fixture_tools, model_errors, wire_agent

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_bad_body"
MODE = "wire"
SHOWS = ("wire.attempts", "wire.client_retries", "status", "step_statuses.0")

server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: ["bad_body"]})
status = deliver(wire_agent(server.url, fixture_tools(world(), "get_weather")), "What is the weather in Paris?", errors=model_errors())
counts = wire_counts(server.requests, ["get_weather"])
report(SCENARIO, {"wire.attempts": counts["wire.attempts"], "wire.client_retries": counts["wire.client_retries"], "status": status, "step_statuses.0": status})
