"""A later model turn that sends a completed call id again with other arguments ends the run: the runner's tool
planning raises ``ModelBehaviorError`` ("Model reused a completed tool call ID for a different invocation") before any
tool runs, so ``Runner.run`` raises it, where the contract answers the key conflict to the model as an error result and
goes on. The first note was written once; the model is not asked again.

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool`` with a ``ToolContext`` first (https://openai.github.io/openai-agents-python/tools/), ``Runner.run``
(https://openai.github.io/openai-agents-python/running_agents/) and ``ModelBehaviorError``
(https://openai.github.io/openai-agents-python/ref/exceptions/), output items from ``agents.testing``
(https://openai.github.io/openai-agents-python/testing/).
"""

import asyncio
import json
from collections import Counter

from agents import Agent, ModelBehaviorError, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "reused_call_id_other_args"
SHOWS = (
    "idempotent_replay.c1.effects",
    "model.calls_per_turn",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "status",
    "step_statuses",
)

fixture = world()
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call the customer back on Monday."}}]},
          {"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call the customer back on Tuesday."}}]},
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
    asyncio.run(Runner.run(agent, "Save a follow-up note."))
    status = "completed"
except ModelBehaviorError as error:  # out of Runner.run: the run is over
    print(f"Runner.run raised {type(error).__module__}.{type(error).__name__}: {error}")
    status = "error"

ledger = counts()["c1"]
report(SCENARIO, {"status": status, "step_statuses": [status], "model.calls_per_turn": dict(asked),
                  "idempotent_replay.c1.effects": ledger["effects"],
                  **{f"side_effects.c1.{k}": ledger[k] for k in ("tool_entries", "executor_entries", "effects")}})
