"""LangChain's ``ChatOpenAI``, at its defaults, gets HTTP 503 with ``Retry-After: 2.5``: the openai client waits and
retries, and the run completes (the contract gives up at once on a Retry-After over 2 s: the engine's step ends
``model_unavailable``).

Documented API only: ``ChatOpenAI(model=..., base_url=..., api_key=...)``
(https://docs.langchain.com/oss/python/integrations/chat#chat-completions-api,
https://docs.langchain.com/oss/python/integrations/chat/openai; its retries are the openai client's,
https://github.com/openai/openai-python#retries), ``create_agent`` (https://docs.langchain.com/oss/python/langchain/agents),
``@tool`` with ``InjectedToolCallId`` (https://docs.langchain.com/oss/python/langchain/tools). The scenario's resume
(driver step 1) finds the run completed.
"""

import json
from typing import Annotated

import openai
from langchain.agents import create_agent
from langchain_core.tools import InjectedToolCallId, tool
from langchain_openai import ChatOpenAI

from harness.column_side.probe_kit import report, world
from harness.column_side.probe_wire import LoopbackModel, wire_counts

SCENARIO = "wire_retry_after_too_long"
MODE = "wire"
SHOWS = ("step_statuses.0",)

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
    except openai.APIError as exc:
        print(f"the run raised {type(exc).__module__}.{type(exc).__name__}: {exc}")
        return "error"
    return "completed"


server = LoopbackModel(SCRIPT, failures={0: [(503, 2.5)]})
status = run(server)
counts = wire_counts(server.requests, ["get_weather"])
print(f"requests: {counts['wire.attempts']}, of them the client's own retries: {counts['wire.client_retries']}")
report(SCENARIO, {k: v for k, v in {**counts, "step_statuses.0": status}.items() if k in SHOWS})
