"""AgentScope decides permission per call: both calls of a turn ask (default mode), and once the human confirms the
email it is sent at once while the note in the same turn still asks, so the reply stays parked with an effect done.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over its default ``AgentState``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a middleware's
``on_acting`` (to hand a function its call id), a ``ChatModelBase`` subclass replaying the script.
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

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "high_risk_in_parallel_batch"
SHOWS = (
    "pre_approval_state.pauses.0.non_read_only_effects",
    "pre_approval_state.pauses.0.pending",
    "pre_approval_state.pauses.1.non_read_only_effects",
    "pre_approval_state.pauses.1.pending",
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


async def step(inputs) -> dict:
    async for _ in agent.reply_stream(inputs):
        pass
    asking = agent.state.get_awaiting_tool_calls("assistant")
    effects = {c: n["effects"] for c, n in counts().items()}
    return {"pending": [{"call_id": c.id, "tool": c.name, "args": json.loads(c.input)} for c in asking], "non_read_only_effects": effects}


agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
              toolkit=Toolkit(tools=[FunctionTool(put_note), FunctionTool(send_email)]), middlewares=[CallIds()])
pauses = [asyncio.run(step(UserMsg(name="user", content="Note the follow-up and email the customer.")))]
email = next(b for b in agent.state.context[-1].get_content_blocks("tool_call") if b.id == "c2")
pauses.append(asyncio.run(step(UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=True, tool_call=email)]))))
statuses = ["awaiting_approval" if p["pending"] else "completed" for p in pauses]
report(SCENARIO, {
    "status": statuses[-1], "step_statuses": statuses,
    "side_effects": {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in counts().items()},
    **{f"pre_approval_state.pauses.{i}.{k}": v for i, p in enumerate(pauses) for k, v in p.items()},
    "pre_approval_state.undecided_at_end": [p["call_id"] for p in pauses[-1]["pending"]],
})
