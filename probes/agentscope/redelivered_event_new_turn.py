"""AgentScope has no inbound event id: the same user message delivered again (a retried webhook) is a new input. The
note of the first delivery asks for confirmation (default mode) and, confirmed as the driver answers a question the
contract would not have asked, is written once; the second delivery is a new turn of the conversation, so the model
is asked for a turn beyond the script, nothing is refused and no result is replayed.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over its default ``AgentState``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a
``UserConfirmResultEvent`` confirming the asking ``ToolCallBlock``, a middleware's ``on_acting`` (to hand a function
its call id), a ``ChatModelBase`` subclass replaying the script. A refusal would be AgentScope's ``ValueError``.
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
from agentscope.tool import FunctionTool, Toolkit

from harness.column_side.probe_kit import contract_answer, counts, report, world

SCENARIO = "duplicate_event"
SHOWS = (
    "idempotent_replay.c1.effects",
    "idempotent_replay.c1.results",
    "model.calls_per_turn",
    "model.missing_turns",
    "refusals",
    "side_effects",
    "step_statuses",
)
PROMPT = "You are a support agent for a small bank. Use the tools when they help."
SCRIPT = [[("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], "The note is saved."]
fixture, call_id, turns, results, refusals = world(), contextvars.ContextVar("call_id"), [], [], []


class Scripted(ChatModelBase):
    """Answers with the script's turn n, n the number of assistant messages in the request (past the script: a filler)."""

    formatter = OpenAIChatFormatter()

    async def _call_api(self, model_name, messages, tools=None, tool_choice=None, **kwargs) -> ChatResponse:
        turns.append(turn := sum(m["role"] == "assistant" for m in await self.formatter.format(messages)))
        reply = SCRIPT[turn] if turn < len(SCRIPT) else "[no scripted turn left]"
        blocks = [TextBlock(text=reply)] if isinstance(reply, str) else [ToolCallBlock(id=i, name=n, input=json.dumps(a)) for i, n, a in reply]
        return ChatResponse(content=blocks, is_last=True)


class CallIds(MiddlewareBase):
    async def on_acting(self, agent, input_kwargs, next_handler):
        call_id.set(input_kwargs["tool_call"].id)
        async for item in next_handler(**input_kwargs):
            yield item


def put_note(key: str, text: str, priority: int | None = None) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    note = fixture.call("put_note", call_id.get(), {"key": key, "text": text, **({"priority": priority} if priority is not None else {})})
    return json.dumps(note, sort_keys=True, separators=(",", ":"))  # compact, as the evidence records a result


async def reply(inputs) -> None:
    async for event in agent.reply_stream(inputs):
        if isinstance(event, ToolResultTextDeltaEvent):
            results.append(event.delta)


def deliver(text: str) -> str:
    """One driver step: the message, then the contract's answer to each confirmation it would not have asked for."""
    try:
        asyncio.run(reply(UserMsg(name="user", content=text)))
    except ValueError as refused:  # raised before the reply starts
        refusals.append("agentscope: " + str(refused).split(":")[0].rstrip("."))
        return "refused"
    while (asking := agent.state.get_awaiting_tool_calls("assistant")) and (answer := contract_answer(asking[0].name)) is not None:
        asyncio.run(reply(UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=answer[0], tool_call=asking[0])])))
    return "awaiting_approval" if agent.state.get_awaiting_tool_calls("assistant") else "completed"


agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
              toolkit=Toolkit(tools=[FunctionTool(put_note)]), middlewares=[CallIds()])
statuses = [deliver("Save a follow-up note.") for _ in range(2)]  # the event, then the same event again
report(SCENARIO, {
    "idempotent_replay.c1.effects": counts().get("c1", {}).get("effects", 0), "idempotent_replay.c1.results": results,
    "refusals": refusals, "step_statuses": statuses,
    "side_effects": {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in counts().items()},
    "model.calls_per_turn": {str(t): turns.count(t) for t in sorted(set(turns))},
    "model.missing_turns": sorted(t for t in set(turns) if t >= len(SCRIPT)),
})
