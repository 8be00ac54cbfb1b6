"""Pydantic AI does not retry a tool that raises: any exception other than ``ModelRetry`` propagates out of the
run, so a write that fails before its effect ends the run with no effect and the model is not asked again (the
contract retries it under the same idempotency key and it writes once).

Documented API only: typed function tools whose exceptions propagate
(https://pydantic.dev/docs/ai/tools-toolsets/tools-advanced/#tool-retries,
https://pydantic.dev/docs/ai/tools-toolsets/tools/) and a scripted ``FunctionModel`` (https://pydantic.dev/docs/ai/guides/testing/).
"""

import json
from collections import Counter

from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import Fault, counts, report, world

SCENARIO = "retry_before_effect"
SHOWS = (
    "model.calls_per_turn",
    "model.unused_turns",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "status",
)

fixture = world(Fault("tool.raise_before_effect", call_id="c1"))  # the first attempt fails before any effect
script = [[ToolCallPart("put_note", {"key": "followup", "text": "Call the customer back on Monday."}, tool_call_id="c1")],
          [TextPart("The note is saved.")]]
asked: Counter[int] = Counter()


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The script's turn is the number of model responses in the conversation so far."""
    turn = sum(isinstance(m, ModelResponse) for m in messages)
    asked[turn] += 1
    return ModelResponse(parts=script[turn])


async def put_note(ctx: RunContext[None], key: str, text: str) -> str:
    """Store a note under a key."""
    return json.dumps(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}))


agent = Agent(FunctionModel(scripted), tools=[put_note],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")
try:
    agent.run_sync("Save a follow-up note.")
    status = "completed"
except Exception as error:  # noqa: BLE001 - the measurement is that the tool's exception ends the run
    status = "error"
    print(f"run ended by {type(error).__name__}: {error}")

ledger = counts()
report(SCENARIO, {"model.calls_per_turn": {str(t): n for t, n in sorted(asked.items())},
                  "model.unused_turns": sorted(set(range(len(script))) - set(asked)),
                  "side_effects.c1.executor_entries": ledger["c1"]["executor_entries"],
                  "side_effects.c1.effects": ledger["c1"]["effects"], "status": status})
