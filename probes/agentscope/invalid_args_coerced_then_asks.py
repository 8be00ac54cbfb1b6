"""AgentScope repairs a call's arguments against the tool's schema before it validates them: ``{"city": 5}`` passes
as ``{"city": "5"}``, reaches the permission check and asks a human (default mode), so the model is never told its
arguments were wrong and never corrects them (the same holds for ``"priority": "2"`` in validation_before_execution).

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over its default ``AgentState``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a middleware's
``on_check_permission``, a ``ChatModelBase`` subclass replaying the script.
"""

import asyncio
import json

from agentscope.agent import Agent
from agentscope.credential import CredentialBase
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import TextBlock, ToolCallBlock, UserMsg
from agentscope.middleware import MiddlewareBase
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.tool import FunctionTool, Toolkit

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "invalid_args_corrected"
SHOWS = (
    "model.calls_per_turn",
    "model.unused_turns",
    "pre_approval_state.pauses.0.args_validated",
    "pre_approval_state.pauses.0.pending",
    "side_effects",
    "status",
)
PROMPT = "You are a support agent for a small bank. Use the tools when they help."
SCRIPT = [[("c1", "get_weather", {"city": 5})], [("c2", "get_weather", {"city": "Paris"})], "It is sunny in Paris."]
fixture, turns, validated = world(), [], {}


class Scripted(ChatModelBase):
    """Answers with the script's turn n, n the number of assistant messages in the request (read as OpenAI's)."""

    formatter = OpenAIChatFormatter()

    async def _call_api(self, model_name, messages, tools=None, tool_choice=None, **kwargs) -> ChatResponse:
        turns.append(turn := sum(m["role"] == "assistant" for m in await self.formatter.format(messages)))
        reply = SCRIPT[turn]
        blocks = [TextBlock(text=reply)] if isinstance(reply, str) else [ToolCallBlock(id=i, name=n, input=json.dumps(a)) for i, n, a in reply]
        return ChatResponse(content=blocks, is_last=True)


class SeeValidated(MiddlewareBase):
    async def on_check_permission(self, agent, input_kwargs, next_handler):
        validated[input_kwargs["tool_call"].id] = input_kwargs["tool_input"]
        return await next_handler(**input_kwargs)


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", "?", {"city": city}))  # never entered: the call asks first


async def run() -> None:
    async for _ in agent.reply_stream(UserMsg(name="user", content="What is the weather in Paris?")):
        pass

agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
              toolkit=Toolkit(tools=[FunctionTool(get_weather)]), middlewares=[SeeValidated()])
asyncio.run(run())
asking = agent.state.get_awaiting_tool_calls("assistant")
print("AgentScope validated and asked about:", validated)
report(SCENARIO, {
    "status": "awaiting_approval" if asking else "completed", "side_effects": counts(),
    "pre_approval_state.pauses.0.pending": [{"call_id": c.id, "tool": c.name, "args": json.loads(c.input)} for c in asking],
    "pre_approval_state.pauses.0.args_validated": all(c.id in validated for c in asking),
    "model.calls_per_turn": {str(t): turns.count(t) for t in sorted(set(turns))},
    "model.unused_turns": [t for t in range(len(SCRIPT)) if t not in turns],
})
