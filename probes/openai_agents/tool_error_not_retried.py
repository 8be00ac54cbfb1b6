"""A tool that raises before its effect is not retried: the default ``failure_error_function`` turns the exception
into an error message for the model, which goes on to its next turn (the engine retries the call, which succeeds).

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool`` with its default ``failure_error_function``
(https://openai.github.io/openai-agents-python/tools/#handling-errors-in-function-tools), a ``ToolContext`` first
(https://openai.github.io/openai-agents-python/context/), ``Runner.run``, output items from ``agents.testing``
(https://openai.github.io/openai-agents-python/testing/).
"""

import asyncio

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse, ToolCallOutputItem
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage

from harness.column_side.probe_kit import Fault, counts, report, world

SCENARIO = "retry_before_effect"
SHOWS = ("side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries")

fixture = world(Fault("tool.raise_before_effect", call_id="c1"))
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call the customer back on Monday."}}]},
          {"text": "The note is saved."}]


class Scripted(Model):
    """Answers the script's turn k, where k is the number of model turns already in its input."""

    async def get_response(self, system_instructions, input, *args, **kwargs) -> ModelResponse:
        turn = sum(1 for item in input if item.get("type") == "function_call" or item.get("role") == "assistant")
        step = SCRIPT[turn]
        calls = [function_call(c["name"], c["arguments"], call_id=c["id"]) for c in step.get("tool_calls", [])]
        return ModelResponse(output=calls or [assistant_message(step["text"])], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


@function_tool
def put_note(ctx: ToolContext, key: str, text: str) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return str(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}))


set_tracing_disabled(True)
agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
              model=Scripted(), tools=[put_note])
result = asyncio.run(Runner.run(agent, "Save a follow-up note."))
print("the model was told:", [i.raw_item["output"] for i in result.new_items if isinstance(i, ToolCallOutputItem)])

ledger = counts()
report(SCENARIO, {f"side_effects.c1.{k}": ledger["c1"][k] for k in ("tool_entries", "executor_entries", "effects")})
