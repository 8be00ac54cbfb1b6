"""Pydantic AI has no event id: the same inbound message delivered again (a retried webhook) is a new user turn on
the saved history, and the model is asked again, beyond its script (the contract ignores the second delivery).

Documented API only: the history saved with ``ModelMessagesTypeAdapter`` and passed back as ``message_history``
(https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json), typed function
tools (https://pydantic.dev/docs/ai/tools-toolsets/tools/), a scripted ``FunctionModel``
(https://pydantic.dev/docs/ai/guides/testing/).
"""

import json
from collections import Counter

from pydantic_ai import Agent, ModelMessagesTypeAdapter, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "duplicate_event"
SHOWS = ("idempotent_replay.c1.effects", "model.calls_per_turn", "model.missing_turns", "step_statuses")

fixture = world()
script = [[ToolCallPart("put_note", {"key": "followup", "text": "Call the customer back on Monday."}, tool_call_id="c1")],
          [TextPart("The note is saved.")]]
asked: Counter[int] = Counter()


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The script's turn is the number of model responses in the conversation so far."""
    turn = sum(isinstance(m, ModelResponse) for m in messages)
    asked[turn] += 1
    return ModelResponse(parts=script[turn] if turn < len(script) else [TextPart("[no scripted turn left]")])


async def put_note(ctx: RunContext[None], key: str, text: str) -> str:
    """Store a note under a key."""
    return json.dumps(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}))


agent = Agent(FunctionModel(scripted), tools=[put_note],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")
saved = b"[]"
statuses = []
for _delivery in range(2):  # the event e1, then the same event again
    result = agent.run_sync("Save a follow-up note.", message_history=ModelMessagesTypeAdapter.validate_json(saved))
    saved = ModelMessagesTypeAdapter.dump_json(result.all_messages())
    statuses.append("completed" if isinstance(result.output, str) else type(result.output).__name__)

report(SCENARIO, {"model.calls_per_turn": {str(t): n for t, n in sorted(asked.items())},
                  "model.missing_turns": sorted(t for t in asked if t >= len(script)),
                  "idempotent_replay.c1.effects": counts()["c1"]["effects"], "step_statuses": statuses})
