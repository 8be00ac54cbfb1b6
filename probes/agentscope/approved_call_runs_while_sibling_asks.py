"""AgentScope decides permission per call: both calls of a turn ask (default mode), and once the note is confirmed
(as the driver answers a question the contract would not have asked) it is written at once while the email in the
same turn still asks, so the reply stays parked with an effect done before the human decided the turn; the human's
confirmation then sends the email.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over its default ``AgentState``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a
``UserConfirmResultEvent`` confirming one asking ``ToolCallBlock``, a middleware's ``on_acting`` (to hand a function
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

SCENARIO = "high_risk_in_parallel_batch"
SHOWS = (
    "pre_approval_state.decisions.0.effects_before",
    "pre_approval_state.implicit_decisions",
    "pre_approval_state.pauses.0.non_read_only_effects",
    "pre_approval_state.pauses.0.pending",
    "pre_approval_state.undecided_at_end",
    "side_effects",
    "status",
    "step_statuses",
)
PROMPT = "You are a support agent for a small bank. Use the tools when they help."
SCRIPT = [[("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."}),
           ("c2", "send_email", {"to": "customer@example.org", "subject": "Follow-up", "body": "We will call on Monday."})],
          "Noted, and the customer is emailed."]
fixture, call_id = world(), contextvars.ContextVar("call_id")


class Scripted(ChatModelBase):
    """Answers with the script's turn n, n the number of assistant messages in the request (read as OpenAI's)."""

    formatter = OpenAIChatFormatter()

    async def _call_api(self, model_name, messages, tools=None, tool_choice=None, **kwargs) -> ChatResponse:
        reply = SCRIPT[sum(m["role"] == "assistant" for m in await self.formatter.format(messages))]
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


def send_email(to: str, subject: str, body: str) -> str:
    """Send an email. High risk: needs a human approval."""
    return json.dumps(fixture.call("send_email", call_id.get(), {"to": to, "subject": subject, "body": body}))


async def reply(inputs) -> None:
    async for _ in agent.reply_stream(inputs):
        pass


def confirm(block: ToolCallBlock, confirmed: bool) -> None:
    asyncio.run(reply(UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=confirmed, tool_call=block)])))


def pause() -> dict:
    asking = agent.state.get_awaiting_tool_calls("assistant")
    return {"pending": [{"call_id": c.id, "tool": c.name, "args": json.loads(c.input)} for c in asking], "non_read_only_effects": effects()}


def effects() -> dict:
    return {c: n["effects"] for c, n in counts().items()}


agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
              toolkit=Toolkit(tools=[FunctionTool(put_note), FunctionTool(send_email)]), middlewares=[CallIds()])
asyncio.run(reply(UserMsg(name="user", content="Note the follow-up and email the customer.")))  # driver step 0: both ask
implicit = []
while (asking := [c for c in agent.state.get_awaiting_tool_calls("assistant") if contract_answer(c.name) is not None]):
    answer = contract_answer(asking[0].name)
    implicit.append({"step": 0, "sub_step": len(implicit) + 1, "call_id": asking[0].id, "tool": asking[0].name, "args": json.loads(asking[0].input),
                     "decision": "approve" if answer[0] else "reject"})
    confirm(asking[0], answer[0])
pauses, before = [pause()], effects()
email = next(b for b in agent.state.get_awaiting_tool_calls("assistant") if b.id == "c2")
confirm(email, True)  # driver step 1: the human approves the email
statuses = ["awaiting_approval", "awaiting_approval" if agent.state.get_awaiting_tool_calls("assistant") else "completed"]
report(SCENARIO, {
    "status": statuses[-1], "step_statuses": statuses,
    "side_effects": {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in counts().items()},
    **{f"pre_approval_state.pauses.0.{k}": v for k, v in pauses[0].items()},
    "pre_approval_state.decisions.0.effects_before": before,
    "pre_approval_state.implicit_decisions": implicit,
    "pre_approval_state.undecided_at_end": [c.id for c in agent.state.get_awaiting_tool_calls("assistant")],
})
