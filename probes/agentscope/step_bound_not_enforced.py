"""AgentScope's loop is bounded by its own ``max_iters`` only, not by the scenario's ``max_steps`` (3): every lookup
asks for confirmation (default mode) and, confirmed as the driver answers a question the contract would not have
asked (at most ``max_steps`` such pauses in a driver step), runs; after the third the model is asked for a fourth
turn, whose lookup is left asking, where the engine stopped at its bound.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over its default ``AgentState`` and ``ReActConfig``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a
``UserConfirmResultEvent`` confirming the asking ``ToolCallBlock``, a middleware's ``on_acting`` (to hand a function
its call id), a ``ChatModelBase`` subclass replaying the script.
"""

import asyncio
import contextvars
import json

from agentscope.agent import Agent
from agentscope.credential import CredentialBase
from agentscope.event import ConfirmResult, UserConfirmResultEvent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import TextBlock, ToolCallBlock, UserMsg
from agentscope.middleware import MiddlewareBase
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.tool import FunctionTool, Toolkit

from harness.column_side.probe_kit import contract_answer, counts, report, world

SCENARIO = "step_bound"
SHOWS = (
    "model.calls_per_turn",
    "model.unused_turns",
    "pre_approval_state.pauses.0.pending",
    "pre_approval_state.undecided_at_end",
    "side_effects",
    "status",
    "step_statuses",
)
MAX_STEPS, PROMPT = 3, "You are a support agent for a small bank. Use the tools when they help."
SCRIPT = [[(f"c{i}", "get_weather", {"city": "Paris"})] for i in range(1, 6)]
fixture, call_id, turns = world(), contextvars.ContextVar("call_id"), []


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


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", call_id.get(), {"city": city}))


async def reply(inputs) -> None:
    async for _ in agent.reply_stream(inputs):
        pass


agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
              toolkit=Toolkit(tools=[FunctionTool(get_weather)]), middlewares=[CallIds()])
asyncio.run(reply(UserMsg(name="user", content="Keep checking the weather in Paris.")))
for _ in range(MAX_STEPS):  # the driver answers at most max_steps pauses in one driver step
    if (asking := agent.state.get_awaiting_tool_calls("assistant")) and (answer := contract_answer(asking[0].name)) is not None:
        asyncio.run(reply(UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=answer[0], tool_call=asking[0])])))
asking = agent.state.get_awaiting_tool_calls("assistant")
status = "awaiting_approval" if asking else "completed"
report(SCENARIO, {
    "status": status, "step_statuses": [status],
    "side_effects": {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in counts().items()},
    "pre_approval_state.pauses.0.pending": [{"call_id": c.id, "tool": c.name, "args": json.loads(c.input)} for c in asking],
    "pre_approval_state.undecided_at_end": [c.id for c in asking],
    "model.calls_per_turn": {str(t): turns.count(t) for t in sorted(set(turns))},
    "model.unused_turns": [t for t in range(len(SCRIPT)) if t not in turns],
})
