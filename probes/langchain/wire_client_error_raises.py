"""LangChain's ``ChatOpenAI``, at its defaults, gets HTTP 400: the openai client does not retry it and ``invoke`` raises
``OpenAIInvalidRequestError`` (an ``openai.BadRequestError``) out of the agent after that one request (the engine stops
``model_unavailable`` with its checkpoint at the last completed turn); the scenario's resume (driver step 1: ``None``
from the last checkpoint) asks turn 0 again and completes, 3 requests in all.

Documented API only: ``ChatOpenAI(model=..., base_url=..., api_key=...)``
(https://docs.langchain.com/oss/python/integrations/chat#chat-completions-api,
https://docs.langchain.com/oss/python/integrations/chat/openai), its error class
(https://reference.langchain.com/python/langchain-openai/chat_models/base/OpenAIInvalidRequestError, a subclass of the
openai client's ``APIError``: https://github.com/openai/openai-python#handling-errors), ``create_agent`` with a
checkpointer (https://docs.langchain.com/oss/python/langchain/agents), resuming with ``None``
(https://docs.langchain.com/oss/python/langgraph/durable-execution), ``@tool`` with ``InjectedToolCallId``
(https://docs.langchain.com/oss/python/langchain/tools).
"""

import json
from typing import Annotated

import openai
from langchain.agents import create_agent
from langchain_core.tools import InjectedToolCallId, tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from harness.column_side.probe_kit import report, world
from harness.column_side.probe_wire import LoopbackModel, wire_counts

SCENARIO = "wire_client_error"
MODE = "wire"
SHOWS = ("wire.attempts", "step_statuses.0")

fixture = world()
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]


@tool
def get_weather(city: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", tool_call_id, {"city": city}))


server = LoopbackModel(SCRIPT, failures={0: [400]})
model = ChatOpenAI(model="scripted-model", base_url=server.url, api_key="probe-key")
agent = create_agent(model, tools=[get_weather], system_prompt="You are a support agent for a small bank. Use the tools when they help.",
                     checkpointer=InMemorySaver())


def step(payload: dict | None) -> str:
    """One driver step as the docs write it; an exception out of it ends the step: its status is ``error``."""
    try:
        agent.invoke(payload, {"configurable": {"thread_id": "t"}})
    except openai.APIError as exc:
        print(f"the run raised {type(exc).__module__}.{type(exc).__name__}: {exc}")
        return "error"
    return "completed"


statuses = [step({"messages": [{"role": "user", "content": "What is the weather in Paris?"}]})]
print(f"driver step 0: {statuses[0]} after {len(server.requests)} request(s)")
statuses.append(step(None))  # driver step 1: resume from the last checkpoint
print(f"driver step 1: {statuses[1]}; {len(server.requests)} requests in all")
report(SCENARIO, {"wire.attempts": wire_counts(server.requests, ["get_weather"])["wire.attempts"], "step_statuses.0": statuses[0]})
