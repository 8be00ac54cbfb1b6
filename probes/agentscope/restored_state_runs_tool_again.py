"""AgentScope keeps no record of what a tool call already did: approving the call again in a restored copy of the
``AgentState`` saved while it asked (a retried webhook) runs the transfer a second time and moves the money twice.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over an ``AgentState`` saved with ``model_dump_json``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a
middleware's ``on_acting`` (to hand a function its call id), a ``ChatModelBase`` subclass replaying the script.
"""

import asyncio
import contextvars
import json

from agentscope.agent import Agent
from agentscope.credential import CredentialBase
from agentscope.event import ConfirmResult, ToolResultTextDeltaEvent, UserConfirmResultEvent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import TextBlock, ToolCallBlock, UserMsg
from agentscope.middleware import MiddlewareBase
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.state import AgentState
from agentscope.tool import FunctionTool, Toolkit

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "resume_same_state_twice"
SHOWS = ("idempotent_replay.c1.effects", "idempotent_replay.c1.results", "model.calls_per_turn", "side_effects.c1")
PROMPT = "You are a support agent for a small bank. Use the tools when they help."
SCRIPT = [[("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent 25.00 from ACC-1 to ACC-2."]
fixture, call_id, turns, results = world(), contextvars.ContextVar("call_id"), [], []


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
    return json.dumps(fixture.call("transfer_funds", call_id.get(), args), sort_keys=True, separators=(",", ":"))


async def step(agent: Agent, inputs) -> None:
    async for event in agent.reply_stream(inputs):
        if isinstance(event, ToolResultTextDeltaEvent):
            results.append(event.delta)


def approve(agent: Agent) -> None:
    asking = agent.state.get_awaiting_tool_calls("assistant")
    asyncio.run(step(agent, UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=True, tool_call=asking[0])])))


def agent_over(state: AgentState) -> Agent:
    return Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
                 toolkit=Toolkit(tools=[FunctionTool(transfer_funds)]), middlewares=[CallIds()], state=state)


agent = agent_over(AgentState(session_id="sess-resume_same_state_twice"))
asyncio.run(step(agent, UserMsg(name="user", content="Send 25.00 from ACC-1 to ACC-2.")))
paused = agent.state.model_dump_json()  # the snapshot of the state that asks
approve(agent)
approve(agent_over(AgentState.model_validate_json(paused)))  # the same saved state delivered again, approved again
ledger = counts()
report(SCENARIO, {
    "idempotent_replay.c1.effects": ledger["c1"]["effects"], "idempotent_replay.c1.results": results,
    "side_effects.c1": {k: ledger["c1"][k] for k in ("tool_entries", "executor_entries", "effects")},
    "model.calls_per_turn": {str(t): turns.count(t) for t in sorted(set(turns))},
})
