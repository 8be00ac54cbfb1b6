"""AgentScope's default permission mode asks a human about every ``FunctionTool``: a read-only weather lookup parks the
reply on a confirmation, and so does every call after it (why always_deny, parallel_tool_calls, step_bound,
retry_before_effect... pause on calls the contract never asks about). Each is confirmed here as the driver answers a
question the contract would not have asked, so the loop goes on: three confirmations for three lookups. The default
``InjectionConfig`` adds a runtime hint (the current time, masked as in the evidence) that reaches the model as a
user message.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over its default ``AgentState``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a
``UserConfirmResultEvent`` confirming the asking ``ToolCallBlock``, a middleware's ``on_acting`` (to hand a function
its call id), a ``ChatModelBase`` subclass replaying the script.
"""

import asyncio
import contextvars
import json
import re

from agentscope.agent import Agent
from agentscope.credential import CredentialBase
from agentscope.event import ConfirmResult, UserConfirmResultEvent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import TextBlock, ToolCallBlock, UserMsg
from agentscope.middleware import MiddlewareBase
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.tool import FunctionTool, Toolkit

from harness.column_side.probe_kit import contract_answer, counts, report, world

SCENARIO = "basic_react_loop"
SHOWS = (
    "model.calls_per_turn",
    "model.injected",
    "model.unused_turns",
    "pre_approval_state.implicit_decisions",
    "pre_approval_state.undecided_at_end",
    "side_effects",
    "status",
    "step_statuses",
)
USER, PROMPT = "What is the weather in Paris and Oslo, and how long does shipping take?", "You are a support agent for a small bank. Use the tools when they help."
SCRIPT = [[("c1", "get_weather", {"city": "Paris"})], [("c2", "get_weather", {"city": "Oslo"})],
          [("c3", "search_kb", {"query": "shipping times"})], "Paris is sunny, Oslo has snow, and shipping takes 3 to 5 business days."]
fixture, call_id, sent = world(), contextvars.ContextVar("call_id"), []


class Scripted(ChatModelBase):
    """Answers with the script's turn n, n the number of assistant messages in the request (read as OpenAI's)."""

    formatter = OpenAIChatFormatter()

    async def _call_api(self, model_name, messages, tools=None, tool_choice=None, **kwargs) -> ChatResponse:
        sent.append(request := await self.formatter.format(messages))
        reply = SCRIPT[sum(m["role"] == "assistant" for m in request)]
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


def search_kb(query: str) -> str:
    """Search the support knowledge base."""
    return json.dumps(fixture.call("search_kb", call_id.get(), {"query": query}))


async def reply(inputs) -> None:
    async for _ in agent.reply_stream(inputs):
        pass

agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
              toolkit=Toolkit(tools=[FunctionTool(get_weather), FunctionTool(search_kb)]), middlewares=[CallIds()])
asyncio.run(reply(UserMsg(name="user", content=USER)))
implicit = []
while (asking := agent.state.get_awaiting_tool_calls("assistant")) and (answer := contract_answer(asking[0].name)) is not None:
    implicit.append({"step": 0, "sub_step": len(implicit) + 1, "call_id": asking[0].id, "tool": asking[0].name, "args": json.loads(asking[0].input),
                     "decision": "approve" if answer[0] else "reject"})
    asyncio.run(reply(UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=answer[0], tool_call=asking[0])])))
asking = agent.state.get_awaiting_tool_calls("assistant")
status, turns = "awaiting_approval" if asking else "completed", [sum(m["role"] == "assistant" for m in request) for request in sent]
hints = {m["content"][0]["text"] for request in sent for m in request if m["role"] == "user" and m["content"][0]["text"] != USER}
report(SCENARIO, {
    "status": status, "step_statuses": [status],
    "side_effects": {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in counts().items()},
    "pre_approval_state.implicit_decisions": implicit,
    "pre_approval_state.undecided_at_end": [c.id for c in asking],
    "model.calls_per_turn": {str(t): turns.count(t) for t in sorted(set(turns))},
    "model.unused_turns": [t for t in range(len(SCRIPT)) if t not in turns],
    "model.injected": sorted("user: " + re.sub("<current-time>.*?</current-time>", "<current-time>(wall clock)</current-time>", h) for h in hints),
})
