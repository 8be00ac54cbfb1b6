"""A tool that fails before its effect is not retried: the note asks for confirmation (default mode) and, confirmed as
the driver answers a question the contract would not have asked, its function raises before the effect; AgentScope
hands the error to the model as the call's result and the model closes the turn, so the note is entered once and never
written.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over its default ``AgentState``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a
``UserConfirmResultEvent`` confirming the asking ``ToolCallBlock``, a middleware's ``on_acting`` (to hand a function
its call id), a ``ChatModelBase`` subclass replaying the script.
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

from harness.column_side.probe_kit import Fault, contract_answer, counts, report, world

SCENARIO = "retry_before_effect"
SHOWS = (
    "model.calls_per_turn",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "status",
    "step_statuses",
)
PROMPT = "You are a support agent for a small bank. Use the tools when they help."
SCRIPT = [[("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], "The note is saved."]
fixture, call_id, turns, results = world(Fault("tool.raise_before_effect", call_id="c1")), contextvars.ContextVar("call_id"), [], []


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


def put_note(key: str, text: str, priority: int | None = None) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return json.dumps(fixture.call("put_note", call_id.get(), {"key": key, "text": text, **({"priority": priority} if priority is not None else {})}))


async def reply(inputs) -> None:
    async for event in agent.reply_stream(inputs):
        if isinstance(event, ToolResultEndEvent):
            results.append((event.tool_call_id, str(event.state)))


agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
              toolkit=Toolkit(tools=[FunctionTool(put_note)]), middlewares=[CallIds()])
asyncio.run(reply(UserMsg(name="user", content="Save a follow-up note.")))
while (asking := agent.state.get_awaiting_tool_calls("assistant")) and (answer := contract_answer(asking[0].name)) is not None:
    asyncio.run(reply(UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=answer[0], tool_call=asking[0])])))
print("AgentScope's results:", results)
status = "awaiting_approval" if agent.state.get_awaiting_tool_calls("assistant") else "completed"
c1 = counts().get("c1", {"tool_entries": 0, "executor_entries": 0, "effects": 0})
report(SCENARIO, {
    "status": status, "step_statuses": [status], "model.calls_per_turn": {str(t): turns.count(t) for t in sorted(set(turns))},
    **{f"side_effects.c1.{k}": c1[k] for k in ("tool_entries", "executor_entries", "effects")},
})
