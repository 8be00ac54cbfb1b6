"""LangChain's ``ChatOpenAI``, at its defaults, against a plain loopback server whose first answer is HTTP 500: the
openai client retries it by itself (``x-stainless-retry-count: 1``), announces no read timeout, sends no
Idempotency-Key. The ``@tool`` object's own schema (``tool_call_schema``) has lost the registry's
``additionalProperties`` and ``minLength`` and gained titles and a description; the request drops those again (the
engine: a 5 s read timeout, a key per logical call, the registry's schema verbatim).

Documented API only: ``ChatOpenAI(model=..., base_url=..., api_key=...)`` for an OpenAI-compatible endpoint
(https://docs.langchain.com/oss/python/integrations/chat#chat-completions-api,
https://docs.langchain.com/oss/python/integrations/chat/openai), ``create_agent`` with a system prompt
(https://docs.langchain.com/oss/python/langchain/agents), ``@tool`` with ``InjectedToolCallId``
(https://docs.langchain.com/oss/python/langchain/tools).
"""

import json
from typing import Annotated

from langchain.agents import create_agent
from langchain_core.tools import InjectedToolCallId, tool
from langchain_openai import ChatOpenAI

from harness.column_side.probe_kit import report, world
from harness.column_side.probe_wire import LoopbackModel, wire_counts

SCENARIO = "wire_http_500_once"
MODE = "wire"
SHOWS = ("wire.attempts", "wire.client_retries", "wire.idempotency_key_sent", "wire.read_timeout", "wire.schema_diff.get_weather", "step_statuses.0")

fixture = world()
server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: [500]})


@tool
def get_weather(city: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", tool_call_id, {"city": city}))


model = ChatOpenAI(model="scripted-model", base_url=server.url, api_key="probe-key")
agent = create_agent(model, tools=[get_weather], system_prompt="You are a support agent for a small bank. Use the tools when they help.")
result = agent.invoke({"messages": [{"role": "user", "content": "What is the weather in Paris?"}]})
print(f"the run answered: {result['messages'][-1].content}")
report(SCENARIO, {**wire_counts(server.requests, ["get_weather"], {"get_weather": get_weather.tool_call_schema.model_json_schema()}), "step_statuses.0": "completed"})
