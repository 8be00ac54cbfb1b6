"""AgentScope repairs a call's arguments against the tool's schema before it validates them: ``{"city": 5}`` passes
as ``{"city": "5"}``, reaches the permission check and asks a human (default mode) with the model's raw arguments;
confirmed (as the driver answers a question the contract would not have asked), the tool runs with the repaired
value, so the model is never told its arguments were wrong (the same holds for ``"priority": "2"`` in
validation_before_execution, whose note is written).

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over its default ``AgentState``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a
``UserConfirmResultEvent`` confirming the asking ``ToolCallBlock``, a middleware's ``on_acting`` (to hand a function
its call id) and ``on_check_permission``, a ``ChatModelBase`` subclass replaying the script.
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

SCENARIO = "invalid_args_corrected"
SHOWS = (
    "model.calls_per_turn",
    "model.unused_turns",
    "pre_approval_state.implicit_decisions",
    "schema_failure_side_effects.c1",
    "side_effects",
    "status",
)
PROMPT = "You are a support agent for a small bank. Use the tools when they help."
SCRIPT = [[("c1", "get_weather", {"city": 5})], [("c2", "get_weather", {"city": "Paris"})], "It is sunny in Paris."]
fixture, call_id, turns, validated = world(), contextvars.ContextVar("call_id"), [], {}


class Scripted(ChatModelBase):
    """Answers with the script's turn n, n the number of assistant messages in the request (read as OpenAI's)."""

    formatter = OpenAIChatFormatter()

    async def _call_api(self, model_name, messages, tools=None, tool_choice=None, **kwargs) -> ChatResponse:
        turns.append(turn := sum(m["role"] == "assistant" for m in await self.formatter.format(messages)))
        reply = SCRIPT[turn]
        blocks = [TextBlock(text=reply)] if isinstance(reply, str) else [ToolCallBlock(id=i, name=n, input=json.dumps(a)) for i, n, a in reply]
        return ChatResponse(content=blocks, is_last=True)


class Observe(MiddlewareBase):
    async def on_acting(self, agent, input_kwargs, next_handler):
        call_id.set(input_kwargs["tool_call"].id)
        async for item in next_handler(**input_kwargs):
            yield item

    async def on_check_permission(self, agent, input_kwargs, next_handler):
        validated[input_kwargs["tool_call"].id] = input_kwargs["tool_input"]
        return await next_handler(**input_kwargs)


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", call_id.get(), {"city": city}))


async def reply(inputs) -> None:
    async for _ in agent.reply_stream(inputs):
        pass

agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
              toolkit=Toolkit(tools=[FunctionTool(get_weather)]), middlewares=[Observe()])
asyncio.run(reply(UserMsg(name="user", content="What is the weather in Paris?")))
implicit = []
while (asking := agent.state.get_awaiting_tool_calls("assistant")) and (answer := contract_answer(asking[0].name)) is not None:
    implicit.append({"step": 0, "sub_step": len(implicit) + 1, "call_id": asking[0].id, "tool": asking[0].name, "args": json.loads(asking[0].input),
                     "decision": "approve" if answer[0] else "reject"})
    asyncio.run(reply(UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=answer[0], tool_call=asking[0])])))
print("AgentScope validated (repaired) and asked about:", validated)
c1 = counts().get("c1", {"tool_entries": 0, "executor_entries": 0, "effects": 0})
report(SCENARIO, {
    "status": "awaiting_approval" if agent.state.get_awaiting_tool_calls("assistant") else "completed",
    "side_effects": {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in counts().items()},
    "schema_failure_side_effects.c1": {"tool_entered": c1["tool_entries"] > 0, "executor_entries": c1["executor_entries"], "effects": c1["effects"]},
    "pre_approval_state.implicit_decisions": implicit,
    "model.calls_per_turn": {str(t): turns.count(t) for t in sorted(set(turns))},
    "model.unused_turns": [t for t in range(len(SCRIPT)) if t not in turns],
})
