"""Pydantic AI runs a turn's calls that need no approval and defers only the one that does: the note runs in the first
run, before the run returns its ``DeferredToolRequests``, so the kill inside it (before its effect) leaves no history
at all. The approval of the transfer then has no deferred call to go to, there is nothing to resume from, and the same
message delivered again starts over: the model is asked for its first turn a second time, the note runs again, and the
run waits for the transfer's approval. The contract pauses the whole turn for the transfer: nothing runs, so the kill
never fires.

Documented API only: ``requires_approval=True`` and ``DeferredToolResults`` built from the calls a run waits on
(https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval); the history written with
``ModelMessagesTypeAdapter`` when a run returns (https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json);
typed function tools (https://pydantic.dev/docs/ai/tools-toolsets/tools/); a scripted ``FunctionModel``
(https://pydantic.dev/docs/ai/guides/testing/). Each driver step runs in a fresh process (``in_child``).
"""

import json

from pydantic_ai import Agent, DeferredToolRequests, ModelMessagesTypeAdapter, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, counts, in_child, report, world

SCENARIO = "kill_in_batch_after_approved"
SHOWS = ("model.calls_per_turn.0", "side_effects.n1", "status", "step_statuses.0", "step_statuses.3")

fixture = world(Fault("tool.kill_before_effect", call_id="n1"))
PROMPT = "Send 25.00 from ACC-1 to ACC-2 and note it."
script = [[ToolCallPart("transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}, tool_call_id="t1"),
           ToolCallPart("put_note", {"key": "n", "text": "x"}, tool_call_id="n1")],
          [TextPart("done")]]
saved, waits, asked_log = SCRATCH / "messages.json", SCRATCH / "waiting.json", SCRATCH / "asked.log"  # outlive a killed process


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The script's turn is the number of model responses in the conversation so far."""
    turn = sum(isinstance(m, ModelResponse) for m in messages)
    with asked_log.open("a") as log:
        log.write(f"{turn}\n")
    return ModelResponse(parts=script[turn])


async def transfer_funds(ctx: RunContext[None], from_account: str, to_account: str, amount_cents: int) -> str:
    """Move money between accounts (high risk: needs a human approval)."""
    return json.dumps(fixture.call("transfer_funds", ctx.tool_call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


async def put_note(ctx: RunContext[None], key: str, text: str) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return json.dumps(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}))


agent = Agent(FunctionModel(scripted), output_type=[str, DeferredToolRequests], tools=[Tool(transfer_funds, requires_approval=True), put_note],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")


def run(**kwargs) -> None:
    """One run on the saved history, written back when it returns with the calls it waits on, as the docs persist a session."""
    history = ModelMessagesTypeAdapter.validate_json(saved.read_bytes()) if saved.exists() else None
    result = agent.run_sync(message_history=history, **kwargs)
    saved.write_bytes(ModelMessagesTypeAdapter.dump_json(result.all_messages()))
    output = result.output
    waits.write_text(json.dumps([c.tool_call_id for c in output.approvals] if isinstance(output, DeferredToolRequests) else []))


def waiting() -> list[str]:
    return json.loads(waits.read_text()) if waits.exists() else []


statuses = {0: "crashed" if in_child(lambda: run(user_prompt=PROMPT)) == FAULT_EXIT_CODE else "returned"}  # driver step 0
# step 1, approve t1: the results are built from the calls the last returned run waits on, and none does: nothing is sent
assert "t1" not in waiting() and not saved.exists()
# step 2, resume: no history was saved, so there is no run to continue (the column refuses it)
run(user_prompt=PROMPT)  # step 3: the same message delivered again
statuses[3] = "awaiting_approval" if waiting() else "completed"

asked = [int(line) for line in asked_log.read_text().split()]
n1 = counts()["n1"]
report(SCENARIO, {"model.calls_per_turn.0": asked.count(0), "side_effects.n1": {k: n1[k] for k in ("tool_entries", "executor_entries", "effects")},
                  "status": statuses[3], "step_statuses.0": statuses[0], "step_statuses.3": statuses[3]})
