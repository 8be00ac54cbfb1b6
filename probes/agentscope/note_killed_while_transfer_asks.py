"""AgentScope decides permission per call: both calls of the turn ask (default mode), and once the note is confirmed (as
the driver answers a question the contract would not have asked) it runs at once while the transfer still asks, so the
kill inside the note (before its effect) ends the first reply. The saved state is the one from before the note's
confirmation: the human's approval of the transfer runs it, the note asks again, is confirmed again and takes effect,
and the run completes; the resume and the same message delivered again each complete as well. The contract pauses the
whole turn for the transfer: nothing runs before the approval, so the kill never fires.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over an ``AgentState`` saved with ``model_dump_json``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a
``UserConfirmResultEvent`` confirming one asking ``ToolCallBlock``, a middleware's ``on_acting`` (to hand a function its
call id), a ``ChatModelBase`` subclass replaying the script (past its end: a closing text). Each driver step runs in a
fresh process (``in_child``).
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
from agentscope.state import AgentState
from agentscope.tool import FunctionTool, Toolkit

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, contract_answer, counts, in_child, report, world

SCENARIO = "kill_in_batch_after_approved"
SHOWS = ("side_effects.n1", "status", "step_statuses")
PROMPT = "You are a support agent for a small bank. Use the tools when they help."
USER = "Send 25.00 from ACC-1 to ACC-2 and note it."
SCRIPT = [[("t1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}), ("n1", "put_note", {"key": "n", "text": "x"})],
          "done"]
fixture, call_id = world(Fault("tool.kill_before_effect", call_id="n1")), contextvars.ContextVar("call_id")
SAVED, STATUS = SCRATCH / "agent_state.json", SCRATCH / "status"  # what survives a process


class Scripted(ChatModelBase):
    """Answers with the script's turn n, n the number of assistant messages in the request (read as OpenAI's)."""

    formatter = OpenAIChatFormatter()

    async def _call_api(self, model_name, messages, tools=None, tool_choice=None, **kwargs) -> ChatResponse:
        turn = sum(m["role"] == "assistant" for m in await self.formatter.format(messages))
        reply = SCRIPT[turn] if turn < len(SCRIPT) else "[no scripted turn left]"
        blocks = [TextBlock(text=reply)] if isinstance(reply, str) else [ToolCallBlock(id=i, name=n, input=json.dumps(a)) for i, n, a in reply]
        return ChatResponse(content=blocks, is_last=True)


class CallIds(MiddlewareBase):
    async def on_acting(self, agent, input_kwargs, next_handler):
        call_id.set(input_kwargs["tool_call"].id)
        async for item in next_handler(**input_kwargs):
            yield item


def transfer_funds(from_account: str, to_account: str, amount_cents: int) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return json.dumps(fixture.call("transfer_funds", call_id.get(), {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


def put_note(key: str, text: str) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return json.dumps(fixture.call("put_note", call_id.get(), {"key": key, "text": text}))


def step(action: str) -> None:
    """One driver step in this process: the agent over the saved state, the step's input, then the contract's answer to
    each confirmation it would not have asked for; the state saved each time a reply returns."""
    state = AgentState.model_validate_json(SAVED.read_text()) if SAVED.exists() else AgentState(session_id="sess-kill_in_batch_after_approved")
    agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
                  toolkit=Toolkit(tools=[FunctionTool(transfer_funds), FunctionTool(put_note)]), middlewares=[CallIds()], state=state)

    async def reply(inputs) -> None:
        async for _ in agent.reply_stream(inputs):
            pass
        SAVED.write_text(agent.state.model_dump_json())

    def confirm(block: ToolCallBlock, confirmed: bool) -> None:
        asyncio.run(reply(UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=confirmed, tool_call=block)])))

    if action == "approve":
        confirm(next(b for b in agent.state.get_awaiting_tool_calls("assistant") if b.id == "t1"), True)
    else:
        asyncio.run(reply(UserMsg(name="user", content=USER) if action in ("run", "deliver") else None))
    while asking := [b for b in agent.state.get_awaiting_tool_calls("assistant") if contract_answer(b.name) is not None]:
        confirm(asking[0], contract_answer(asking[0].name)[0])
    STATUS.write_text("awaiting_approval" if agent.state.get_awaiting_tool_calls("assistant") else "completed")


statuses = []
for action in ("run", "approve", "resume", "deliver"):  # deliver: the same event delivered again
    STATUS.unlink(missing_ok=True)  # a step that fails leaves no status behind (reading it then fails the probe)
    statuses.append("crashed" if in_child(lambda action=action: step(action)) == FAULT_EXIT_CODE else STATUS.read_text())

n1 = counts()["n1"]
report(SCENARIO, {"side_effects.n1": {k: n1[k] for k in ("tool_entries", "executor_entries", "effects")},
                  "status": statuses[-1], "step_statuses": statuses})
