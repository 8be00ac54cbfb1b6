"""AgentScope's state is saved when a reply returns: a process killed inside the approved transfer's executor (before
its effect) loses the whole step, so the saved state still asks about the call, the approval is gone, and the resume
(``reply(None)`` in a fresh process) is refused while a call awaits confirmation; nothing is reconciled or run again.
``approval_survives`` asks only about approvals given and not yet used at the kill (one is used once its call's
executor was entered): the probe reports ``None`` when c1's executor was entered in the killed step (as here: the
kill is inside it), else whether the saved state a resume finds still has c1 allowed.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over an ``AgentState`` saved with ``model_dump_json``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a
middleware's ``on_acting`` (to hand a function its call id), a ``ChatModelBase`` subclass replaying the script. A
refusal is AgentScope's ``ValueError`` up to its first colon, as in the evidence.
"""

import asyncio
import contextvars
import json

from agentscope.agent import Agent
from agentscope.credential import CredentialBase
from agentscope.event import ConfirmResult, UserConfirmResultEvent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import TextBlock, ToolCallBlock, ToolCallState, UserMsg
from agentscope.middleware import MiddlewareBase
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.state import AgentState
from agentscope.tool import FunctionTool, Toolkit

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, counts, in_child, report, world

SCENARIO = "kill_before_effect"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.approval_survives",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "refusals.0",
    "side_effects",
    "step_statuses.0",
    "step_statuses.1",
    "step_statuses.2",
)
PROMPT = "You are a support agent for a small bank. Use the tools when they help."
SCRIPT = [[("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent 25.00 from ACC-1 to ACC-2."]
fixture, call_id = world(Fault("tool.kill_before_effect", call_id="c1")), contextvars.ContextVar("call_id")
SAVED = SCRATCH / "agent_state.json"


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


def transfer_funds(from_account: str, to_account: str, amount_cents: int, memo: str | None = None) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    args = {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents, **({"memo": memo} if memo else {})}
    return json.dumps(fixture.call("transfer_funds", call_id.get(), args))


def saved() -> AgentState:
    return AgentState.model_validate_json(SAVED.read_text()) if SAVED.exists() else AgentState(session_id="sess-kill_before_effect")


def step(inputs) -> str:
    """One driver step in this process: the agent over the saved state, one reply, the state saved when it returns."""
    agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
                  toolkit=Toolkit(tools=[FunctionTool(transfer_funds)]), middlewares=[CallIds()], state=saved())

    async def run() -> None:
        async for _ in agent.reply_stream(inputs):
            pass
    try:
        asyncio.run(run())
    except ValueError as refused:  # raised before the reply starts
        refusals.append("agentscope: " + str(refused).split(":")[0].rstrip("."))
        return "refused"
    SAVED.write_text(agent.state.model_dump_json())
    return "awaiting_approval" if agent.state.get_awaiting_tool_calls("assistant") else "completed"


def approve_c1(state: AgentState) -> UserConfirmResultEvent:
    return UserConfirmResultEvent(reply_id=state.reply_id, confirm_results=[ConfirmResult(confirmed=True, tool_call=state.get_awaiting_tool_calls("assistant")[0])])


refusals = []
statuses = [step(UserMsg(name="user", content="Send 25.00 from ACC-1 to ACC-2."))]
entered = [counts().get("c1", {}).get("executor_entries", 0)]  # c1's executor entries when the approval is given
statuses.append("crashed" if in_child(lambda: step(approve_c1(saved()))) == FAULT_EXIT_CODE else "not killed")
before_resume, c1 = {c: n["effects"] for c, n in counts().items()}, saved().context[-1].get_content_blocks("tool_call")[0]  # what a resume finds
entered.append(counts().get("c1", {}).get("executor_entries", 0))  # ... and at the kill: more means the approval was used
statuses.append(step(None))  # the resume
report(SCENARIO, {
    "checkpoint_after_interrupt.interrupts.0.resume_position": "awaiting_approval" if c1.state == ToolCallState.ASKING else str(c1.state),
    "checkpoint_after_interrupt.interrupts.0.approval_survives": None if entered[1] > entered[0] else c1.state == ToolCallState.ALLOWED,
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume": before_resume,
    "checkpoint_after_interrupt.effects_after_resume": {c: n["effects"] for c, n in counts().items()},
    "checkpoint_after_interrupt.final_status": "awaiting_approval" if saved().get_awaiting_tool_calls("assistant") else "completed",
    "refusals.0": refusals[0] if refusals else None, **{f"step_statuses.{i}": s for i, s in enumerate(statuses)},  # then the column refuses the reconcile
    "side_effects": {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in counts().items()},
})
