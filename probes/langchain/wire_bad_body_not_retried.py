"""LangChain's ``ChatOpenAI``, at its defaults, gets a 200 whose body is not JSON and does not try again: ``invoke``
raises the openai client's ``json.JSONDecodeError`` as is, after that one request (the engine retries it as a failed
attempt and completes).

Documented API only: ``ChatOpenAI(model=..., base_url=..., api_key=...)``
(https://docs.langchain.com/oss/python/integrations/chat#chat-completions-api,
https://docs.langchain.com/oss/python/integrations/chat/openai; the openai client's error classes, which do not cover
this case: https://github.com/openai/openai-python#handling-errors), ``create_agent``
(https://docs.langchain.com/oss/python/langchain/agents), ``@tool`` with ``InjectedToolCallId``
(https://docs.langchain.com/oss/python/langchain/tools).
"""

import json
from typing import Annotated

import openai
from langchain.agents import create_agent
from langchain_core.tools import InjectedToolCallId, tool
from langchain_openai import ChatOpenAI

from harness.column_side.probe_kit import report, world
from harness.column_side.probe_wire import LoopbackModel, wire_counts

SCENARIO = "wire_bad_body"
MODE = "wire"
SHOWS = ("wire.attempts", "step_statuses.0")

fixture = world()
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]


@tool
def get_weather(city: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", tool_call_id, {"city": city}))


def run(server: LoopbackModel) -> str:
    """One run as the docs write it; an exception out of it ends the run: the step's status is ``error``."""
    model = ChatOpenAI(model="scripted-model", base_url=server.url, api_key="probe-key")
    agent = create_agent(model, tools=[get_weather], system_prompt="You are a support agent for a small bank. Use the tools when they help.")
    try:
        agent.invoke({"messages": [{"role": "user", "content": "What is the weather in Paris?"}]})
    except (json.JSONDecodeError, openai.APIError) as exc:
        print(f"the run raised {type(exc).__module__}.{type(exc).__name__}: {exc}")
        return "error"
    return "completed"


server = LoopbackModel(SCRIPT, failures={0: ["bad_body"]})
status = run(server)
report(SCENARIO, {k: v for k, v in {**wire_counts(server.requests, ["get_weather"]), "step_statuses.0": status}.items() if k in SHOWS})
