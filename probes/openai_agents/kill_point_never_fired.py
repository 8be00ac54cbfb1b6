"""The SDK has no checkpoint between a tool call's intent and its executor, so the engine's kill point there never
fires: the run completes. The resume that follows finds no paused ``RunState`` (nothing is pending) and nothing that
says the run ended, so it continues the ``SQLiteSession``'s conversation and asks the model for one more turn.

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool`` with a ``ToolContext`` first (https://openai.github.io/openai-agents-python/tools/,
https://openai.github.io/openai-agents-python/context/), ``Runner.run(agent, input, session=SQLiteSession(...))``, the
session's history prepended to a resume's (empty) input (https://openai.github.io/openai-agents-python/sessions/),
output items from ``agents.testing`` (https://openai.github.io/openai-agents-python/testing/). Each driver step runs in a
fresh process (``in_child``).
"""

import asyncio
import json
from collections import Counter

from agents import Agent, Runner, SQLiteSession, function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, in_child, report, world

SCENARIO = "kill_after_checkpoint"
SHOWS = ("checkpoint_after_interrupt.interrupts", "model.calls_per_turn", "step_statuses")

fixture = world(Fault("engine.kill_after_checkpoint", call_id="c1"))
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call the customer back on Monday."}}]},
          {"text": "The note is saved."}]
HERE = SCRATCH  # what survives a process: the session, each step's status, the turns the model was asked
STATUS, TURNS = HERE / "status", HERE / "turns"


class Scripted(Model):
    """Answers the script's turn k, where k is the number of model turns already in its input."""

    async def get_response(self, system_instructions, input, *args, **kwargs) -> ModelResponse:
        turn = sum(1 for item in input if item.get("type") == "function_call" or item.get("role") == "assistant")
        with TURNS.open("a") as log:
            log.write(f"{turn}\n")
        step = SCRIPT[turn] if turn < len(SCRIPT) else {"text": "[scripted model: no scripted turn left]"}
        calls = [function_call(c["name"], c["arguments"], call_id=c["id"]) for c in step.get("tool_calls", [])]
        return ModelResponse(output=calls or [assistant_message(step["text"])], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


@function_tool
def put_note(ctx: ToolContext, key: str, text: str) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return str(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}))


async def step(action: str) -> None:
    """One driver step in this process: the run, or a resume that continues the session's conversation."""
    agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
                  model=Scripted(), tools=[put_note])
    session = SQLiteSession("sess-kill_after_checkpoint", str(HERE / "session.sqlite"))
    result = await Runner.run(agent, "Save a follow-up note." if action == "run" else [], session=session)
    STATUS.write_text(json.dumps("awaiting_approval" if result.interruptions else "completed"))


set_tracing_disabled(True)
statuses, codes = [], []
for action in ("run", "resume"):
    STATUS.unlink(missing_ok=True)  # a step that fails leaves no status behind (reading it then fails the probe)
    codes.append(in_child(lambda action=action: asyncio.run(step(action))))
    statuses.append("crashed" if codes[-1] == FAULT_EXIT_CODE else json.loads(STATUS.read_text()))
# interrupts: the steps a kill ended (each would be an interrupt record; none, since the SDK never reaches the kill point)
report(SCENARIO, {"checkpoint_after_interrupt.interrupts": [i for i, code in enumerate(codes) if code == FAULT_EXIT_CODE],
                  "step_statuses": statuses, "model.calls_per_turn": dict(Counter(TURNS.read_text().split()))})
