"""``Runner.run`` has no inbound event id: the same user input delivered again to the same ``SQLiteSession`` is a new
user turn, and the model is asked again (turn 2, beyond the script), where the engine refuses the duplicate event.

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool`` with a ``ToolContext`` first (https://openai.github.io/openai-agents-python/tools/,
https://openai.github.io/openai-agents-python/context/), ``Runner.run(agent, input, session=SQLiteSession(...))``
(https://openai.github.io/openai-agents-python/sessions/), output items from ``agents.testing``
(https://openai.github.io/openai-agents-python/testing/).
"""

import asyncio
import json
from collections import Counter

from agents import Agent, Runner, SQLiteSession, function_tool, set_tracing_disabled
from agents.items import ModelResponse, ToolCallOutputItem
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage

from harness.column_side.probe_kit import SCRATCH, counts, report, world

SCENARIO = "duplicate_event"
SHOWS = ("idempotent_replay.c1.effects", "idempotent_replay.c1.results", "model.calls_per_turn", "step_statuses")

fixture = world()
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call the customer back on Monday."}}]},
          {"text": "The note is saved."}]
asked = Counter()  # model calls per turn


class Scripted(Model):
    """Answers the script's turn k, where k is the number of model turns already in its input."""

    async def get_response(self, system_instructions, input, *args, **kwargs) -> ModelResponse:
        turn = sum(1 for item in input if item.get("type") == "function_call" or item.get("role") == "assistant")
        asked[str(turn)] += 1
        step = SCRIPT[turn] if turn < len(SCRIPT) else {"text": "[scripted model: no scripted turn left]"}
        calls = [function_call(c["name"], c["arguments"], call_id=c["id"]) for c in step.get("tool_calls", [])]
        return ModelResponse(output=calls or [assistant_message(step["text"])], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


@function_tool
def put_note(ctx: ToolContext, key: str, text: str) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return json.dumps(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}), sort_keys=True, separators=(",", ":"))


async def main() -> dict:
    agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
                  model=Scripted(), tools=[put_note])
    session = SQLiteSession("sess-duplicate_event", str(SCRATCH / "session.sqlite"))
    statuses, answers = [], []
    for _ in ("run", "deliver_again"):  # the same event, delivered twice
        result = await Runner.run(agent, "Save a follow-up note.", session=session)
        statuses.append("awaiting_approval" if result.interruptions else "completed")
        answers += [i.raw_item["output"] for i in result.new_items if isinstance(i, ToolCallOutputItem) and i.raw_item["call_id"] == "c1"]
    return {"model.calls_per_turn": dict(asked), "step_statuses": statuses,
            "idempotent_replay.c1.results": answers, "idempotent_replay.c1.effects": counts()["c1"]["effects"]}


set_tracing_disabled(True)
report(SCENARIO, asyncio.run(main()))
