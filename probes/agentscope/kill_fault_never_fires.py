"""A kill scheduled between the engine's checkpoint of a call's intent and its executor never fires under
AgentScope's defaults: nothing in AgentScope meets that point. The note asks for confirmation (default mode) and,
confirmed as the driver answers a question the contract would not have asked, is written once; the reply returns, its
state is saved and the process ends normally. The resume (``reply(None)`` in a fresh process) finds nothing to
continue and asks the model for one more turn, beyond the script. No interrupt.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over an ``AgentState`` saved with ``model_dump_json``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a
``UserConfirmResultEvent`` confirming the asking ``ToolCallBlock``, a middleware's ``on_acting`` (to hand a function
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
from agentscope.state import AgentState
from agentscope.tool import FunctionTool, Toolkit

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, contract_answer, counts, in_child, report, world

SCENARIO = "kill_after_checkpoint"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts",
    "model.calls_per_turn",
    "model.missing_turns",
    "step_statuses",
)
PROMPT = "You are a support agent for a small bank. Use the tools when they help."
SCRIPT = [[("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], "The note is saved."]
fixture, call_id = world(Fault("engine.kill_after_checkpoint", call_id="c1")), contextvars.ContextVar("call_id")
SAVED, TURNS = SCRATCH / "agent_state.json", SCRATCH / "turns.jsonl"  # on disk: the steps run in two processes


class Scripted(ChatModelBase):
    """Answers with the script's turn n, n the number of assistant messages in the request (past the script: a filler)."""

    formatter = OpenAIChatFormatter()

    async def _call_api(self, model_name, messages, tools=None, tool_choice=None, **kwargs) -> ChatResponse:
        turn = sum(m["role"] == "assistant" for m in await self.formatter.format(messages))
        with open(TURNS, "a") as turns:
            turns.write(f"{turn}\n")
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
    return json.dumps(fixture.call("put_note", call_id.get(), {"key": key, "text": text, **({"priority": priority} if priority is not None else {})}))


def step(inputs) -> str:
    """One driver step in this process: the agent over the saved state, one reply and the contract's answer to each
    confirmation it would not have asked for, the state saved each time a reply returns."""
    saved = AgentState.model_validate_json(SAVED.read_text()) if SAVED.exists() else AgentState(session_id="sess-kill_after_checkpoint")
    agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
                  toolkit=Toolkit(tools=[FunctionTool(put_note)]), middlewares=[CallIds()], state=saved)

    async def reply(inputs) -> None:
        async for _ in agent.reply_stream(inputs):
            pass
        SAVED.write_text(agent.state.model_dump_json())
    asyncio.run(reply(inputs))
    while (asking := agent.state.get_awaiting_tool_calls("assistant")) and (answer := contract_answer(asking[0].name)) is not None:
        asyncio.run(reply(UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=answer[0], tool_call=asking[0])])))
    return "awaiting_approval" if agent.state.get_awaiting_tool_calls("assistant") else "completed"


killed = in_child(lambda: step(UserMsg(name="user", content="Save a follow-up note."))) == FAULT_EXIT_CODE
statuses = ["crashed" if killed else "completed", step(None)]  # run (in a child a kill would end), resume
turns = [int(t) for t in TURNS.read_text().split()]
report(SCENARIO, {
    "checkpoint_after_interrupt.interrupts": [{"step": 0}] if killed else [],  # a kill's full record is not rebuilt here
    "checkpoint_after_interrupt.effects_after_resume": {c: n["effects"] for c, n in counts().items()},
    "checkpoint_after_interrupt.final_status": statuses[-1], "step_statuses": statuses,
    "model.calls_per_turn": {str(t): turns.count(t) for t in sorted(set(turns))},
    "model.missing_turns": sorted(t for t in set(turns) if t >= len(SCRIPT)),
})
