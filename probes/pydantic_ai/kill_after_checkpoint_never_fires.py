"""Pydantic AI writes nothing before it runs a tool (the documented session is the history written when a run
returns), so the kill scheduled after an intent checkpoint has no moment to fire: the first run completes, there is
no interrupt, and the resume of the finished history completes too (the contract dies after its intent record and
resumes before the executor).

Documented API only: the history written with ``ModelMessagesTypeAdapter`` when a run returns and resumed with no new
prompt (https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json,
https://pydantic.dev/docs/ai/core-concepts/message-history/#persisting-sessions), typed function tools
(https://pydantic.dev/docs/ai/tools-toolsets/tools/), a scripted ``FunctionModel`` (https://pydantic.dev/docs/ai/guides/testing/).
"""

import json

from pydantic_ai import Agent, ModelMessagesTypeAdapter, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, counts, in_child, report, world

SCENARIO = "kill_after_checkpoint"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts",
    "step_statuses",
)

fixture = world(Fault("engine.kill_after_checkpoint", call_id="c1"))  # only an intent checkpoint could fire it
script = [[ToolCallPart("put_note", {"key": "followup", "text": "Call the customer back on Monday."}, tool_call_id="c1")],
          [TextPart("The note is saved.")]]
saved = SCRATCH / "messages.json"


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The script's turn is the number of model responses in the conversation so far."""
    return ModelResponse(parts=script[sum(isinstance(m, ModelResponse) for m in messages)])


async def put_note(ctx: RunContext[None], key: str, text: str) -> str:
    """Store a note under a key."""
    print(f"put_note entered; anything saved before it: {saved.exists()}", flush=True)
    return json.dumps(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}))


agent = Agent(FunctionModel(scripted), tools=[put_note],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")


def run(prompt: str | None = None) -> None:
    """One run on the saved history, written back when it returns, as the documentation persists a session."""
    history = ModelMessagesTypeAdapter.validate_json(saved.read_bytes()) if saved.exists() else None
    result = agent.run_sync(prompt, message_history=history)
    saved.write_bytes(ModelMessagesTypeAdapter.dump_json(result.all_messages()))


exits = [in_child(lambda: run("Save a follow-up note.")), in_child(run)]  # the run, then the resume (no new prompt)
statuses = ["crashed" if code == FAULT_EXIT_CODE else "completed" if code == 0 else "error" for code in exits]
report(SCENARIO, {"checkpoint_after_interrupt.interrupts": [i for i, s in enumerate(statuses) if s == "crashed"],
                  "checkpoint_after_interrupt.effects_after_resume": {c: e["effects"] for c, e in counts().items()},
                  "checkpoint_after_interrupt.final_status": statuses[-1], "step_statuses": statuses})
