"""Pydantic AI keeps no checkpoint of its own: the documented session is the history written when a run returns,
so a process killed before the second model turn leaves nothing to resume from (the note of ``c1`` is written, the
run that wrote it is lost); the contract resumes at the model turn and finishes.

Documented API only: the history written with ``ModelMessagesTypeAdapter`` when the run returns
(https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json,
https://pydantic.dev/docs/ai/core-concepts/message-history/#persisting-sessions), typed function tools
(https://pydantic.dev/docs/ai/tools-toolsets/tools/), a scripted ``FunctionModel`` (https://pydantic.dev/docs/ai/guides/testing/).
"""

import json

from pydantic_ai import Agent, ModelMessagesTypeAdapter, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, counts, in_child, report, world

SCENARIO = "crash_resume"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.resumable",
    "model.calls_per_turn",
    "model.unused_turns",
    "side_effects.c1.effects",
    "status",
)

fixture = world(Fault("model.kill_before_turn", turn=1))
script = [[ToolCallPart("put_note", {"key": "followup", "text": "Call the customer back on Monday."}, tool_call_id="c1")],
          [ToolCallPart("get_weather", {"city": "Paris"}, tool_call_id="c2")],
          [TextPart("Saved; Paris is sunny.")]]
state = SCRATCH
saved, asked_log = state / "messages.json", state / "asked.log"  # both outlive a killed process


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The script's turn is the number of model responses so far; the process dies before answering turn 1."""
    turn = sum(isinstance(m, ModelResponse) for m in messages)
    with asked_log.open("a") as log:
        log.write(f"{turn}\n")
    fixture.faults.fire("model.kill_before_turn", turn=turn)
    return ModelResponse(parts=script[turn])


async def put_note(ctx: RunContext[None], key: str, text: str) -> str:
    """Store a note under a key."""
    return json.dumps(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}))


async def get_weather(ctx: RunContext[None], city: str) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", ctx.tool_call_id, {"city": city}))


agent = Agent(FunctionModel(scripted), tools=[put_note, get_weather],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")


def first_run() -> None:
    result = agent.run_sync("Save a follow-up note, then tell me the weather in Paris.")
    saved.write_bytes(ModelMessagesTypeAdapter.dump_json(result.all_messages()))


killed = in_child(first_run) == FAULT_EXIT_CODE
effects_before = {call_id: entry["effects"] for call_id, entry in counts().items()}
status = "crashed" if killed else "completed"
if saved.exists():  # the resume: the saved history, no new prompt
    agent.run_sync(message_history=ModelMessagesTypeAdapter.validate_json(saved.read_bytes()))
    status = "completed"

asked = [int(line) for line in asked_log.read_text().split()]
report(SCENARIO, {"checkpoint_after_interrupt.interrupts.0.resumable": saved.exists(),
                  "checkpoint_after_interrupt.interrupts.0.effects_before_resume": effects_before,
                  "checkpoint_after_interrupt.effects_after_resume": {c: e["effects"] for c, e in counts().items()},
                  "checkpoint_after_interrupt.final_status": status, "status": status,
                  "model.calls_per_turn": {str(t): asked.count(t) for t in sorted(set(asked))},
                  "model.unused_turns": sorted(set(range(len(script))) - set(asked)),
                  "side_effects.c1.effects": counts()["c1"]["effects"]})
