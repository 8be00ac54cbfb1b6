"""LangChain's ``ChatOpenAI``, at its defaults, gets HTTP 400: the openai client does not retry it and ``invoke`` raises
``OpenAIInvalidRequestError`` (an ``openai.BadRequestError``) out of the agent after that one request (the engine stops
``model_unavailable`` with its checkpoint at the last completed turn); the scenario's resume (driver step 1: ``None``
from the last checkpoint) asks turn 0 again and completes, 3 requests in all.

Documented API only: the error class (https://reference.langchain.com/python/langchain-openai/chat_models/base/OpenAIInvalidRequestError,
a subclass of the openai client's ``APIError``: https://github.com/openai/openai-python#handling-errors), ``create_agent``
with a checkpointer (https://docs.langchain.com/oss/python/langchain/agents), resuming with ``None``
(https://docs.langchain.com/oss/python/langgraph/durable-execution); ``create_agent`` with ``ChatOpenAI`` and the ``@tool``
are the kit's (``probes/langchain/_kit.py``).
"""

import openai
from _kit import fixture_tools, step, thread, user, wire_agent
from langgraph.checkpoint.memory import InMemorySaver

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_client_error"
MODE = "wire"
SHOWS = ("wire.attempts", "step_statuses.0")

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]
server = LoopbackModel(SCRIPT, failures={0: [400]})
app, config = wire_agent(server, fixture_tools(world().call, "get_weather"), checkpointer=InMemorySaver()), thread("t")

statuses = [step(app, user("What is the weather in Paris?"), config, errors=(openai.APIError,))]
print(f"driver step 0: {statuses[0]} after {len(server.requests)} request(s)")
statuses.append(step(app, None, config, errors=(openai.APIError,)))  # driver step 1: resume from the last checkpoint
print(f"driver step 1: {statuses[1]}; {len(server.requests)} requests in all")
report(SCENARIO, {"wire.attempts": wire_counts(server.requests, ["get_weather"])["wire.attempts"], "step_statuses.0": statuses[0]})
