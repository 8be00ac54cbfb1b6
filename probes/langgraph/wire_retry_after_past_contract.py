"""LangGraph's agent graph with LangChain's ``ChatOpenAI`` at its defaults gets HTTP 503 with ``Retry-After: 2.5``: the
openai client waits and retries, and the run completes (the contract gives up at once on a Retry-After over 2 s: the
engine's step ends ``model_unavailable``).

Documented API only: ``StateGraph`` with ``MessagesState``, a model node, ``ToolNode`` and ``tools_condition``
(https://docs.langchain.com/oss/python/langgraph/quickstart, https://docs.langchain.com/oss/python/langgraph/workflows-agents,
https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode), ``ChatOpenAI(model=..., base_url=..., api_key=...)``
bound to the tools (https://docs.langchain.com/oss/python/integrations/chat#chat-completions-api,
https://docs.langchain.com/oss/python/integrations/chat/openai), ``@tool`` with ``InjectedToolCallId``
(https://docs.langchain.com/oss/python/langchain/tools); the retries are the openai client's (https://github.com/openai/openai-python#retries).
The scenario's resume (driver step 1) finds the run completed.
"""

import json
from typing import Annotated

import openai
from langchain_core.messages import SystemMessage
from langchain_core.tools import InjectedToolCallId, tool
from langchain_openai import ChatOpenAI
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from harness.column_side.probe_kit import report, world
from harness.column_side.probe_wire import LoopbackModel, wire_counts

SCENARIO = "wire_retry_after_too_long"
MODE = "wire"
SHOWS = ("step_statuses.0",)

fixture = world()
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]
server = LoopbackModel(SCRIPT, failures={0: [(503, 2.5)]})


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
try:
    graph.compile().invoke({"messages": [("user", "What is the weather in Paris?")]})
    status = "completed"
except openai.APIError as exc:  # an exception out of the run ends the step: its status is ``error``
    print(f"the run raised {type(exc).__module__}.{type(exc).__name__}: {exc}")
    status = "error"
counts = wire_counts(server.requests, ["get_weather"])
print(f"requests: {counts['wire.attempts']}, of them the client's own retries: {counts['wire.client_retries']}")
report(SCENARIO, {"step_statuses.0": status})
