"""AgentScope has no inbound event id: the same user message delivered again (a retried webhook) is a new input, and
while the note from the first delivery asks for confirmation (default mode) AgentScope refuses any input that is not a
confirmation, so the note never runs, no result exists to replay, and the model is not asked again.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over its default ``AgentState``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a middleware's
``on_acting`` (to hand a function its call id), a ``ChatModelBase`` subclass replaying the script. A refusal is
AgentScope's ``ValueError`` up to its first colon, as in the evidence.
"""

import asyncio
import contextvars
import json

from agentscope.agent import Agent
from agentscope.credential import CredentialBase
from agentscope.event import ToolResultTextDeltaEvent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import TextBlock, ToolCallBlock, UserMsg
from agentscope.middleware import MiddlewareBase
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.tool import FunctionTool, Toolkit

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "duplicate_event"
SHOWS = (
    "idempotent_replay.c1.effects",
    "idempotent_replay.c1.results",
    "model.calls_per_turn",
    "refusals",
    "side_effects",
    "step_statuses",
)
PROMPT = "You are a support agent for a small bank. Use the tools when they help."
SCRIPT = [[("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], "The note is saved."]
fixture, call_id, turns, results, refusals = world(), contextvars.ContextVar("call_id"), [], [], []


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


async def deliver(text: str) -> str:
    try:
        async for event in agent.reply_stream(UserMsg(name="user", content=text)):
            if isinstance(event, ToolResultTextDeltaEvent):
                results.append(event.delta)
    except ValueError as refused:  # raised before the reply starts
        refusals.append("agentscope: " + str(refused).split(":")[0].rstrip("."))
        return "refused"
    return "awaiting_approval" if agent.state.get_awaiting_tool_calls("assistant") else "completed"


agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
              toolkit=Toolkit(tools=[FunctionTool(put_note)]), middlewares=[CallIds()])
statuses = [asyncio.run(deliver("Save a follow-up note.")) for _ in range(2)]  # the event, then the same event again
report(SCENARIO, {
    "idempotent_replay.c1.effects": counts().get("c1", {}).get("effects", 0), "idempotent_replay.c1.results": results,
    "refusals": refusals, "step_statuses": statuses, "side_effects": counts(),
    "model.calls_per_turn": {str(t): turns.count(t) for t in sorted(set(turns))},
})
