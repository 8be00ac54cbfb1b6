"""LangGraph's agent graph with LangChain's ``ChatOpenAI`` at its defaults gets HTTP 400: the openai client does not retry
it and ``invoke`` raises ``OpenAIInvalidRequestError`` (an ``openai.BadRequestError``) out of the graph after that one
request (the engine stops ``model_unavailable`` with its checkpoint at the last completed turn); the scenario's resume
(driver step 1: ``None`` from the last checkpoint) asks turn 0 again and completes, 3 requests in all.

Documented API only: the error class (https://reference.langchain.com/python/langchain-openai/chat_models/base/OpenAIInvalidRequestError,
a subclass of the openai client's ``APIError``: https://github.com/openai/openai-python#handling-errors), a checkpointer
and resuming with ``None`` (https://docs.langchain.com/oss/python/langgraph/persistence,
https://docs.langchain.com/oss/python/langgraph/durable-execution); the agent graph with ``ChatOpenAI`` bound to the
tools and the ``@tool`` are the kit's (``probes/langgraph/_kit.py``).
"""

import openai
from _kit import fixture_tools, step, thread, user, wire_graph
from langgraph.checkpoint.memory import InMemorySaver

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_client_error"
MODE = "wire"
SHOWS = ("wire.attempts", "step_statuses.0")
PINS = ("1.2.24", "0.6.11")

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]
server = LoopbackModel(SCRIPT, failures={0: [400]})
app, config = wire_graph(server, fixture_tools(world().call, "get_weather")).compile(checkpointer=InMemorySaver()), thread("t")

statuses = [step(app, user("What is the weather in Paris?"), config, errors=(openai.APIError,))]
print(f"driver step 0: {statuses[0]} after {len(server.requests)} request(s)")
statuses.append(step(app, None, config, errors=(openai.APIError,)))  # driver step 1: resume from the last checkpoint
print(f"driver step 1: {statuses[1]}; {len(server.requests)} requests in all")
report(SCENARIO, {"wire.attempts": wire_counts(server.requests, ["get_weather"])["wire.attempts"], "step_statuses.0": statuses[0]})
