"""AgentScope's toolkit turns every exception of a tool, a ``TimeoutError`` after the transfer's effect included, into
an error result for the model: the reply does not stop for reconciliation, the call is not retried, and the reply
goes on to the model's next turn and completes (the driver's reconcile then has nothing to settle).

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over its default ``AgentState``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a middleware's
``on_acting`` (to hand a function its call id), a ``ChatModelBase`` subclass replaying the script.
"""

import asyncio
import contextvars
import json

from agentscope.agent import Agent
from agentscope.credential import CredentialBase
from agentscope.event import ConfirmResult, ToolResultEndEvent, UserConfirmResultEvent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import TextBlock, ToolCallBlock, UserMsg
from agentscope.middleware import MiddlewareBase
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.tool import FunctionTool, Toolkit

from harness.column_side.probe_kit import Fault, counts, report, world

SCENARIO = "uncertain_after_timeout"
SHOWS = ("model.calls_per_turn", "side_effects.c1", "step_statuses.0", "step_statuses.1")
PROMPT = "You are a support agent for a small bank. Use the tools when they help."
SCRIPT = [[("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent 25.00 from ACC-1 to ACC-2."]
fixture, call_id, turns = world(Fault("tool.timeout_after_effect", call_id="c1")), contextvars.ContextVar("call_id"), []


class Scripted(ChatModelBase):
    """Answers with the script's turn n, n the number of assistant messages in the request (read as OpenAI's)."""

    formatter = OpenAIChatFormatter()

    async def _call_api(self, model_name, messages, tools=None, tool_choice=None, **kwargs) -> ChatResponse:
        turns.append(turn := sum(m["role"] == "assistant" for m in await self.formatter.format(messages)))
        reply = SCRIPT[turn]
        blocks = [TextBlock(text=reply)] if isinstance(reply, str) else [ToolCallBlock(id=i, name=n, input=json.dumps(a)) for i, n, a in reply]
        return ChatResponse(content=blocks, is_last=True)


class CallIds(MiddlewareBase):
    async def on_acting(self, agent, input_kwargs, next_handler):
        call_id.set(input_kwargs["tool_call"].id)
        async for item in next_handler(**input_kwargs):
            yield item


def transfer_funds(from_account: str, to_account: str, amount_cents: int, memo: str | None = None) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    args = {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents, **({"memo": memo} if memo else {})}
    return json.dumps(fixture.call("transfer_funds", call_id.get(), args))


async def step(inputs) -> str:
    async for event in agent.reply_stream(inputs):
        if isinstance(event, ToolResultEndEvent):
            print(f"tool result of {event.tool_call_id}: {event.state}")
    return "awaiting_approval" if agent.state.get_awaiting_tool_calls("assistant") else "completed"


agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
              toolkit=Toolkit(tools=[FunctionTool(transfer_funds)]), middlewares=[CallIds()])
statuses = [asyncio.run(step(UserMsg(name="user", content="Send 25.00 from ACC-1 to ACC-2.")))]
asking = agent.state.get_awaiting_tool_calls("assistant")
statuses.append(asyncio.run(step(UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=True, tool_call=asking[0])]))))
report(SCENARIO, {
    **{f"step_statuses.{i}": s for i, s in enumerate(statuses)},  # then the column refuses the reconcile: AgentScope has none
    "side_effects.c1": {k: counts()["c1"][k] for k in ("tool_entries", "executor_entries", "effects")},
    "model.calls_per_turn": {str(t): turns.count(t) for t in sorted(set(turns))},
})
