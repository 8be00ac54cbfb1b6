"""AgentScope saves its state when a reply returns: the note asks for confirmation (default mode), and the reply that
the confirmation starts (given as the driver answers a question the contract would not have asked) writes the note and
is killed before the next model turn, so the saved state is the one from before the confirmation: the note's effect
landed, yet the call still asks. The resume (``reply(None)`` in a fresh process) is refused while it asks, and the
weather lookup of the next turn never runs.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system): ``Agent``
over an ``AgentState`` saved with ``model_dump_json``, ``reply_stream``, typed functions in ``FunctionTool(fn)``, a
``UserConfirmResultEvent`` confirming the asking ``ToolCallBlock``, a middleware's ``on_acting`` (to hand a function
its call id), a ``ChatModelBase`` subclass replaying the script. A refusal is AgentScope's ``ValueError`` up to its
first colon, as in the evidence.
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

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, contract_answer, counts, in_child, report, world

SCENARIO = "crash_resume"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "refusals",
    "side_effects",
    "status",
    "step_statuses",
)
PROMPT = "You are a support agent for a small bank. Use the tools when they help."
SCRIPT = [[("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], [("c2", "get_weather", {"city": "Paris"})], "Saved; Paris is sunny."]
fixture, call_id = world(Fault("model.kill_before_turn", turn=1)), contextvars.ContextVar("call_id")
SAVED = SCRATCH / "agent_state.json"


class Scripted(ChatModelBase):
    """Answers with the script's turn n, n the number of assistant messages in the request (read as OpenAI's)."""

    formatter = OpenAIChatFormatter()

    async def _call_api(self, model_name, messages, tools=None, tool_choice=None, **kwargs) -> ChatResponse:
        turn = sum(m["role"] == "assistant" for m in await self.formatter.format(messages))
        fixture.faults.fire("model.kill_before_turn", turn=turn)
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


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", call_id.get(), {"city": city}))


def saved() -> AgentState:
    return AgentState.model_validate_json(SAVED.read_text()) if SAVED.exists() else AgentState(session_id="sess-crash_resume")


def step(inputs) -> str:
    """One driver step in this process: the agent over the saved state, one reply and the contract's answer to each
    confirmation it would not have asked for, the state saved each time a reply returns."""
    agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False),
                  toolkit=Toolkit(tools=[FunctionTool(put_note), FunctionTool(get_weather)]), middlewares=[CallIds()], state=saved())

    async def reply(inputs) -> None:
        async for _ in agent.reply_stream(inputs):
            pass
        SAVED.write_text(agent.state.model_dump_json())
    try:
        asyncio.run(reply(inputs))
    except ValueError as refused:  # raised before the reply starts
        refusals.append("agentscope: " + str(refused).split(":")[0].rstrip("."))
        return "refused"
    while (asking := agent.state.get_awaiting_tool_calls("assistant")) and (answer := contract_answer(asking[0].name)) is not None:
        asyncio.run(reply(UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=answer[0], tool_call=asking[0])])))
    return "awaiting_approval" if agent.state.get_awaiting_tool_calls("assistant") else "completed"


refusals = []
killed = in_child(lambda: step(UserMsg(name="user", content="Save a follow-up note, then tell me the weather in Paris."))) == FAULT_EXIT_CODE
before = {c: n["effects"] for c, n in counts().items()}
asking = [b for b in saved().context[-1].get_content_blocks("tool_call") if b.state == ToolCallState.ASKING]
statuses = ["crashed" if killed else "completed", step(None)]  # run (killed before turn 1), resume
final = "awaiting_approval" if saved().get_awaiting_tool_calls("assistant") else "completed"
report(SCENARIO, {
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume": before,
    "checkpoint_after_interrupt.interrupts.0.resume_position": "awaiting_approval" if asking else "model_turn",
    "checkpoint_after_interrupt.effects_after_resume": {c: n["effects"] for c, n in counts().items()},
    "checkpoint_after_interrupt.final_status": final, "status": final,
    "refusals": refusals, "step_statuses": statuses,
    "side_effects": {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in counts().items()},
})
