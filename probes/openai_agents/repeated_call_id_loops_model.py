"""A tool call whose call id the SDK already answered is dropped (neither run nor answered again), and the model is
sent the same input again and again until the default ``max_turns`` (10) raises ``MaxTurnsExceeded``.

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool`` with a ``ToolContext`` first (https://openai.github.io/openai-agents-python/tools/,
https://openai.github.io/openai-agents-python/context/), ``Runner.run`` with the default ``max_turns`` and
``MaxTurnsExceeded`` (https://openai.github.io/openai-agents-python/running_agents/), ``exc.run_data``
(https://openai.github.io/openai-agents-python/ref/exceptions/), output items from ``agents.testing``
(https://openai.github.io/openai-agents-python/testing/).
"""

import asyncio
import json
from collections import Counter

from agents import Agent, MaxTurnsExceeded, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse, ToolCallOutputItem
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "duplicate_call_id"
SHOWS = ("idempotent_replay.c1.effects", "idempotent_replay.c1.results", "model.calls_per_turn", "status")

fixture = world()
NOTE = {"key": "followup", "text": "Call the customer back on Monday."}
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "put_note", "arguments": NOTE}]},
          {"tool_calls": [{"id": "c1", "name": "put_note", "arguments": NOTE}]},
          {"text": "The note is saved."}]
asked = Counter()  # model calls per turn


class Scripted(Model):
    """Answers the script's turn k, where k is the number of model turns already in its input."""

    async def get_response(self, system_instructions, input, *args, **kwargs) -> ModelResponse:
        turn = sum(1 for item in input if item.get("type") == "function_call" or item.get("role") == "assistant")
        asked[str(turn)] += 1
        step = SCRIPT[turn]
        calls = [function_call(c["name"], c["arguments"], call_id=c["id"]) for c in step.get("tool_calls", [])]
        return ModelResponse(output=calls or [assistant_message(step["text"])], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


@function_tool
def put_note(ctx: ToolContext, key: str, text: str) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return json.dumps(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}), sort_keys=True, separators=(",", ":"))


set_tracing_disabled(True)
agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
              model=Scripted(), tools=[put_note])
try:
    items, status = asyncio.run(Runner.run(agent, "Save a follow-up note.")).new_items, "completed"
except MaxTurnsExceeded as exc:
    items, status = exc.run_data.new_items, "stopped_max_steps"
answers = [i.raw_item["output"] for i in items if isinstance(i, ToolCallOutputItem) and i.raw_item["call_id"] == "c1"]

report(SCENARIO, {"model.calls_per_turn": dict(asked), "status": status,
                  "idempotent_replay.c1.results": answers, "idempotent_replay.c1.effects": counts()["c1"]["effects"]})
