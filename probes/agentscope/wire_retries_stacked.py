"""AgentScope's ``OpenAIChatModel`` at its defaults stacks its own retries (``max_retries=3``) around the openai client's
(2 each): when every request of turn 1 gets HTTP 500, one model call makes 4 x 3 = 12 requests, 8 of them the client's
own retries (``x-stainless-retry-count`` above 0), then ``reply_stream`` raises ``openai.InternalServerError`` (the
contract: 3 attempts in all, no client retries, then ``model_unavailable`` with the checkpoint at the last completed
turn). The note (turn 0) asks for confirmation (default mode) and is confirmed as the driver answers a question the
contract would not have asked. The scenario's resume (driver step 1) makes no request in the column's run (it ends
``refused``), so the run here is the scenario's every request.

Documented API only (https://docs.agentscope.io/v2/building-blocks/model, .../agent, .../tool, .../permission-system):
``OpenAIChatModel(credential=OpenAICredential(api_key=..., base_url=...), model=...)`` with its default ``max_retries``
(https://github.com/agentscope-ai/agentscope/blob/main/src/agentscope/model/_base.py), ``Agent``, ``reply_stream``,
``FunctionTool(fn)``, a ``UserConfirmResultEvent``, a middleware's ``on_acting`` (to hand the function its call id), the
openai client's retries and errors (https://github.com/openai/openai-python#retries).
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

SCENARIO = "wire_http_500_always"
MODE = "wire"
SHOWS = ("wire.client_retries", "step_statuses.0")
PROMPT = "You are a support agent for a small bank. Use the tools when they help."

fixture, call_id = world(), contextvars.ContextVar("call_id")
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call the customer back on Monday."}}]},
          {"text": "The note is saved."}]


class CallIds(MiddlewareBase):
    async def on_acting(self, agent, input_kwargs, next_handler):
        call_id.set(input_kwargs["tool_call"].id)
        async for item in next_handler(**input_kwargs):
            yield item


def put_note(key: str, text: str, priority: int | None = None) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return json.dumps(fixture.call("put_note", call_id.get(), {"key": key, "text": text, **({"priority": priority} if priority is not None else {})}))


async def run(server: LoopbackModel) -> str:
    """The run as the docs write it, confirmations included; an exception out of it ends the run: status ``error``."""
    model = OpenAIChatModel(credential=OpenAICredential(api_key=SecretStr("probe-key"), base_url=server.url), model="scripted-model")
    agent = Agent(name="assistant", system_prompt=PROMPT, model=model, toolkit=Toolkit(tools=[FunctionTool(put_note)]), middlewares=[CallIds()])
    inputs = UserMsg(name="user", content="Save a follow-up note.")
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


server = LoopbackModel(SCRIPT, always={1: 500})
status = asyncio.run(run(server))
print("requests of turn 1 (x-stainless-retry-count):", [r["retry_count"] for r in server.requests if r["turn"] == 1])
report(SCENARIO, {k: v for k, v in {**wire_counts(server.requests, ["put_note"]), "step_statuses.0": status}.items() if k in SHOWS})
