"""``@function_tool``'s pydantic argument model is lax: arguments the tool's strict schema rejects (``priority`` as
the string ``"2"``, an unknown ``color`` field) are coerced or dropped, and the tool runs with them.

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool`` whose schema and argument parsing come from the signature, a ``ToolContext`` first
(https://openai.github.io/openai-agents-python/tools/, https://openai.github.io/openai-agents-python/context/),
``Runner.run``, output items from ``agents.testing`` (https://openai.github.io/openai-agents-python/testing/).
"""

import asyncio

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "validation_before_execution"
SHOWS = (
    "schema_failure_side_effects.c1.effects",
    "schema_failure_side_effects.c1.executor_entries",
    "schema_failure_side_effects.c1.tool_entered",
    "schema_failure_side_effects.c2.effects",
    "schema_failure_side_effects.c2.executor_entries",
    "schema_failure_side_effects.c2.tool_entered",
)

fixture = world()
SCRIPT = [
    {"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call back.", "priority": "2"}}]},
    {"tool_calls": [{"id": "c2", "name": "put_note", "arguments": {"key": "followup", "text": "Call back.", "priority": 2, "color": "red"}}]},
    {"tool_calls": [{"id": "c3", "name": "put_note", "arguments": {"key": "followup", "text": "Call back.", "priority": 2}}]},
    {"text": "The note is saved."},
]
received: dict[str, dict] = {}  # what each call's function was given after the SDK parsed the model's arguments


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
def put_note(ctx: ToolContext, key: str, text: str, priority: int | None = None) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    received[ctx.tool_call_id] = args = {"key": key, "text": text, "priority": priority}
    return str(fixture.call("put_note", ctx.tool_call_id, args))


set_tracing_disabled(True)
agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
              model=Scripted(), tools=[put_note])
asyncio.run(Runner.run(agent, "Save a follow-up note with priority 2."))
print("the tool received:", received)

ledger = counts()
report(SCENARIO, {f"schema_failure_side_effects.{cid}.{key}": value for cid in ("c1", "c2") for key, value in
                  (("tool_entered", ledger[cid]["tool_entries"] > 0), ("executor_entries", ledger[cid]["executor_entries"]),
                   ("effects", ledger[cid]["effects"]))})
