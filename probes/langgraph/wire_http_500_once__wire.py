"""LangGraph's agent graph with LangChain's ``ChatOpenAI`` at its defaults, against a plain loopback server whose first
answer is HTTP 500: the openai client retries it by itself (``x-stainless-retry-count: 1``), announces no read timeout,
sends no Idempotency-Key. The ``@tool`` object's own schema (``tool_call_schema``) has lost the registry's
``additionalProperties`` and ``minLength`` and gained titles and a description; the request drops those again (the
engine: a 5 s read timeout, a key per logical call, the registry's schema verbatim).

Documented API only, through the kit (``probes/langgraph/_kit.py``): ``StateGraph`` with ``MessagesState``, a model node,
``ToolNode`` and ``tools_condition``, ``ChatOpenAI(model=..., base_url=..., api_key=...)`` bound to the tools
(https://docs.langchain.com/oss/python/integrations/chat/openai), ``@tool`` with ``InjectedToolCallId``.
"""

from _kit import fixture_tools, user, wire_graph

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_http_500_once"
MODE = "wire"
SHOWS = ("wire.attempts", "wire.client_retries", "wire.idempotency_key_sent", "wire.read_timeout", "wire.schema_diff.get_weather", "step_statuses.0")
PINS = ("1.2.24", "0.6.11")

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]
server = LoopbackModel(SCRIPT, failures={0: [500]})
[get_weather] = fixture_tools(world().call, "get_weather")
result = wire_graph(server, [get_weather]).compile().invoke(user("What is the weather in Paris?"))
print(f"the run answered: {result['messages'][-1].content}")
report(SCENARIO, {**wire_counts(server.requests, ["get_weather"], {"get_weather": get_weather.tool_call_schema.model_json_schema()}), "step_statuses.0": "completed"})
