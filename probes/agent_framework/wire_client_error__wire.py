"""Agent Framework's own OpenAI-compatible client, at its defaults, gets HTTP 400: the openai client does not retry it,
``OpenAIChatCompletionClient`` wraps the ``BadRequestError`` in ``ChatClientException`` and the run ends in it (the
engine stops ``model_unavailable`` with its checkpoint at the last completed turn, for a resume). The run saved
nothing (a session is saved when a run returns), so the scenario's resume finds nothing to resume from.

Documented API only, through the kit (``_kit.py``): ``OpenAIChatCompletionClient(model=..., base_url=..., api_key=...)``
from ``agent_framework.openai`` (https://learn.microsoft.com/en-us/agent-framework/agents/providers/openai), its error
``agent_framework.exceptions.ChatClientException``
(https://learn.microsoft.com/en-us/python/api/agent-framework-core/agent_framework.exceptions), an ``AgentSession``
saved with ``to_dict()`` when a run returns (https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session),
a typed ``async`` function tool (https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools).
"""

from _kit import deliver, fixture_tools, model_errors, resume, wire_agent

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_client_error"
MODE = "wire"
SHOWS = ("wire.attempts", "wire.client_retries", "status", "step_statuses")

server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: [400]})
fixture = world()
statuses = [deliver(wire_agent(server.url, fixture_tools(fixture, "get_weather")), "What is the weather in Paris?", errors=model_errors())]  # step 0
statuses.append(resume(wire_agent(server.url, fixture_tools(fixture, "get_weather")), errors=model_errors()))  # step 1: the resume
counts = wire_counts(server.requests, ["get_weather"])
final = statuses[0] if statuses[1] == "refused" else statuses[1]  # a refused step leaves the run as it was
report(SCENARIO, {"wire.attempts": counts["wire.attempts"], "wire.client_retries": counts["wire.client_retries"], "status": final, "step_statuses": statuses})
