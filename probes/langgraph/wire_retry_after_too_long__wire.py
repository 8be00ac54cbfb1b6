"""LangGraph's agent graph with LangChain's ``ChatOpenAI`` at its defaults gets HTTP 503 with ``Retry-After: 2.5``: the
openai client waits and retries, and the run completes (the contract gives up at once on a Retry-After over 2 s: the
engine's step ends ``model_unavailable``). The scenario's resume (driver step 1) finds the run completed.

Documented API only: the retries are the openai client's (https://github.com/openai/openai-python#retries); the agent
graph with ``ChatOpenAI(model=..., base_url=..., api_key=...)`` bound to the tools and the ``@tool`` are the kit's
(``probes/langgraph/_kit.py``).
"""

import openai
from _kit import fixture_tools, step, user, wire_graph

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_retry_after_too_long"
MODE = "wire"
SHOWS = ("step_statuses.0",)
PINS = ("1.2.24", "0.6.11")

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]
server = LoopbackModel(SCRIPT, failures={0: [(503, 2.5)]})
status = step(wire_graph(server, fixture_tools(world().call, "get_weather")).compile(), user("What is the weather in Paris?"), errors=(openai.APIError,))
wire = wire_counts(server.requests, ["get_weather"])
print(f"requests: {wire['wire.attempts']}, of them the client's own retries: {wire['wire.client_retries']}")
report(SCENARIO, {"step_statuses.0": status})
