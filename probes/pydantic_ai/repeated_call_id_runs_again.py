"""Pydantic AI keeps no record of the calls it executed: a write the model repeats with the same call id on a later
turn runs again (two effects; the contract replays the stored result).

Documented API only: an ``Agent`` with a typed function tool (https://pydantic.dev/docs/ai/tools-toolsets/tools/,
the call id from ``RunContext.tool_call_id``) and a scripted ``FunctionModel`` (https://pydantic.dev/docs/ai/guides/testing/).
"""

import json

from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "duplicate_call_id"
SHOWS = ("idempotent_replay.c1.effects", "side_effects.c1.effects", "side_effects.c1.executor_entries")

fixture = world()
note = {"key": "followup", "text": "Call the customer back on Monday."}
script = [[ToolCallPart("put_note", note, tool_call_id="c1")],
          [ToolCallPart("put_note", note, tool_call_id="c1")],
          [TextPart("The note is saved.")]]


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The script's turn is the number of model responses in the conversation so far."""
    return ModelResponse(parts=script[sum(isinstance(m, ModelResponse) for m in messages)])


async def put_note(ctx: RunContext[None], key: str, text: str) -> str:
    """Store a note under a key."""
    return json.dumps(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}))


agent = Agent(FunctionModel(scripted), tools=[put_note],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")
agent.run_sync("Save a follow-up note.")

ledger = counts()
report(SCENARIO, {"idempotent_replay.c1.effects": ledger["c1"]["effects"],
                  "side_effects.c1.executor_entries": ledger["c1"]["executor_entries"],
                  "side_effects.c1.effects": ledger["c1"]["effects"]})
