"""LangGraph's agent graph with LangChain's ``ChatOpenAI`` at its defaults, against a plain loopback server whose first
answer is HTTP 500: the openai client retries it by itself (``x-stainless-retry-count: 1``), announces no read timeout,
sends no Idempotency-Key. The ``@tool`` object's own schema (``tool_call_schema``) has lost the registry's
``additionalProperties`` and ``minLength`` and gained titles and a description; the request drops those again (the
engine: a 5 s read timeout, a key per logical call, the registry's schema verbatim).

Documented API only: ``StateGraph`` with ``MessagesState``, a model node, ``ToolNode`` and ``tools_condition``
(https://docs.langchain.com/oss/python/langgraph/quickstart, https://docs.langchain.com/oss/python/langgraph/workflows-agents,
https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode), ``ChatOpenAI(model=..., base_url=..., api_key=...)``
bound to the tools (https://docs.langchain.com/oss/python/integrations/chat#chat-completions-api,
https://docs.langchain.com/oss/python/integrations/chat/openai), ``@tool`` with ``InjectedToolCallId``
(https://docs.langchain.com/oss/python/langchain/tools).
"""

import json
from typing import Annotated

from langchain_core.messages import SystemMessage
from langchain_core.tools import InjectedToolCallId, tool
from langchain_openai import ChatOpenAI
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from harness.column_side.probe_kit import report, world
from harness.column_side.probe_wire import LoopbackModel, wire_counts

SCENARIO = "wire_http_500_once"
MODE = "wire"
SHOWS = ("wire.attempts", "wire.client_retries", "wire.idempotency_key_sent", "wire.read_timeout", "wire.schema_diff.get_weather", "step_statuses.0")

fixture = world()
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]
server = LoopbackModel(SCRIPT, failures={0: [500]})


@tool
def get_weather(city: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", tool_call_id, {"city": city}))


model = ChatOpenAI(model="scripted-model", base_url=server.url, api_key="probe-key").bind_tools([get_weather])


def agent(state: MessagesState) -> dict:
    system = SystemMessage("You are a support agent for a small bank. Use the tools when they help.")
    return {"messages": [model.invoke([system, *state["messages"]])]}


graph = StateGraph(MessagesState)
graph.add_node("agent", agent)
graph.add_node("tools", ToolNode([get_weather]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition)
graph.add_edge("tools", "agent")
result = graph.compile().invoke({"messages": [("user", "What is the weather in Paris?")]})
print(f"the run answered: {result['messages'][-1].content}")
report(SCENARIO, {**wire_counts(server.requests, ["get_weather"], {"get_weather": get_weather.tool_call_schema.model_json_schema()}), "step_statuses.0": "completed"})
