"""AgentScope's ``OpenAIChatModel`` (an ``OpenAICredential`` with a ``base_url``) at its defaults, against a plain
loopback server whose first answer is HTTP 500: the openai client under it retries it by itself
(``x-stainless-retry-count: 1``), announces a 600 s read timeout and sends no Idempotency-Key. The ``FunctionTool``'s
``input_schema`` lacks the registry's ``additionalProperties`` and ``minLength`` and is sent as it is (the engine: no
client retries, 5 s, a key per logical call, the registry's schema verbatim). The lookup asks for confirmation (default mode) and is confirmed as the driver
answers a question the contract would not have asked.

Documented API only (https://docs.agentscope.io/v2/building-blocks/model, .../agent, .../tool, .../permission-system):
``OpenAIChatModel(credential=OpenAICredential(api_key=..., base_url=...), model=...)``, ``Agent`` over its default
``AgentState``, ``reply_stream``, a typed function in ``FunctionTool(fn)``, a ``UserConfirmResultEvent`` confirming the
asking ``ToolCallBlock``, a middleware's ``on_acting`` (to hand the function its call id).
"""

import asyncio
import contextvars
import json

from agentscope.agent import Agent
from agentscope.credential import OpenAICredential
from agentscope.event import ConfirmResult, UserConfirmResultEvent
from agentscope.message import UserMsg
from agentscope.middleware import MiddlewareBase
from agentscope.model import OpenAIChatModel
from agentscope.tool import FunctionTool, Toolkit
from pydantic import SecretStr

from harness.column_side.probe_kit import contract_answer, report, world
from harness.column_side.probe_wire import LoopbackModel, wire_counts

SCENARIO = "wire_http_500_once"
MODE = "wire"
SHOWS = ("wire.attempts", "wire.client_retries", "wire.idempotency_key_sent", "wire.read_timeout", "wire.schema_diff.get_weather", "step_statuses.0")
PROMPT = "You are a support agent for a small bank. Use the tools when they help."

fixture, call_id = world(), contextvars.ContextVar("call_id")
server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: [500]})


class CallIds(MiddlewareBase):
    async def on_acting(self, agent, input_kwargs, next_handler):
        call_id.set(input_kwargs["tool_call"].id)
        async for item in next_handler(**input_kwargs):
            yield item


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", call_id.get(), {"city": city}))


weather = FunctionTool(get_weather)


async def main() -> str:
    model = OpenAIChatModel(credential=OpenAICredential(api_key=SecretStr("probe-key"), base_url=server.url), model="scripted-model")
    agent = Agent(name="assistant", system_prompt=PROMPT, model=model, toolkit=Toolkit(tools=[weather]), middlewares=[CallIds()])
    inputs = UserMsg(name="user", content="What is the weather in Paris?")
    while inputs is not None:
        async for _ in agent.reply_stream(inputs):
            pass
        asking, inputs = agent.state.get_awaiting_tool_calls("assistant"), None
        if asking and (answer := contract_answer(asking[0].name)) is not None:
            inputs = UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=answer[0], tool_call=asking[0])])
    return "awaiting_approval" if agent.state.get_awaiting_tool_calls("assistant") else "completed"


status = asyncio.run(main())
report(SCENARIO, {**wire_counts(server.requests, ["get_weather"], {"get_weather": weather.input_schema}), "step_statuses.0": status})
