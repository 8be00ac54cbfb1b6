"""AgentScope's ``OpenAIChatModel`` streams by default; when the stream is cut after its first event, the openai client
raises ``openai.APIConnectionError`` while it is read, neither it (stream consumption is not retried) nor AgentScope's
own retries send the request again, and ``reply_stream`` raises after that one request (the engine retries the same
logical call and completes).

Documented API only (https://docs.agentscope.io/v2/building-blocks/model, .../agent, .../tool, .../permission-system):
``OpenAIChatModel(credential=OpenAICredential(api_key=..., base_url=...), model=...)``, ``Agent``, ``reply_stream``, a
typed function in ``FunctionTool(fn)``, a ``UserConfirmResultEvent`` confirming the asking ``ToolCallBlock``, a
middleware's ``on_acting`` (to hand the function its call id), the openai client's errors and streaming
(https://github.com/openai/openai-python#handling-errors).
"""

import asyncio
import contextvars
import json

import openai
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

SCENARIO = "wire_stream_cut"
MODE = "wire"
SHOWS = ("wire.attempts", "step_statuses.0")
PROMPT = "You are a support agent for a small bank. Use the tools when they help."

fixture, call_id = world(), contextvars.ContextVar("call_id")
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]


class CallIds(MiddlewareBase):
    async def on_acting(self, agent, input_kwargs, next_handler):
        call_id.set(input_kwargs["tool_call"].id)
        async for item in next_handler(**input_kwargs):
            yield item


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", call_id.get(), {"city": city}))


async def run(server: LoopbackModel) -> str:
    """The run as the docs write it, confirmations included; an exception out of it ends the run: status ``error``."""
    model = OpenAIChatModel(credential=OpenAICredential(api_key=SecretStr("probe-key"), base_url=server.url), model="scripted-model")
    agent = Agent(name="assistant", system_prompt=PROMPT, model=model, toolkit=Toolkit(tools=[FunctionTool(get_weather)]), middlewares=[CallIds()])
    inputs = UserMsg(name="user", content="What is the weather in Paris?")
    while inputs is not None:
        try:
            async for _ in agent.reply_stream(inputs):
                pass
        except openai.APIError as exc:
            print(f"the run raised {type(exc).__name__}: {exc}")
            return "error"
        asking, inputs = agent.state.get_awaiting_tool_calls("assistant"), None
        if asking and (answer := contract_answer(asking[0].name)) is not None:
            inputs = UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=answer[0], tool_call=asking[0])])
    return "awaiting_approval" if agent.state.get_awaiting_tool_calls("assistant") else "completed"


server = LoopbackModel(SCRIPT, failures={0: ["cut"]})
status = asyncio.run(run(server))
report(SCENARIO, {k: v for k, v in {**wire_counts(server.requests, ["get_weather"]), "step_statuses.0": status}.items() if k in SHOWS})
