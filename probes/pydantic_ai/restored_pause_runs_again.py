"""Pydantic AI keeps no record of executed calls: the saved history of a pause, delivered again after the approved
transfer ran and approved again, runs the transfer a second time (the contract replays the stored result).

Documented API only: the paused history saved with ``ModelMessagesTypeAdapter``
(https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json), continued with
``DeferredToolResults`` built from ``requests.approvals``
(https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval); typed function
tools (https://pydantic.dev/docs/ai/tools-toolsets/tools/); a scripted ``FunctionModel`` (https://pydantic.dev/docs/ai/guides/testing/).
"""

import json

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ModelMessagesTypeAdapter, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "resume_same_state_twice"
SHOWS = ("idempotent_replay.c1.effects", "side_effects.c1.effects", "side_effects.c1.executor_entries")

fixture = world()
script = [[ToolCallPart("transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}, tool_call_id="c1")],
          [TextPart("Sent 25.00 from ACC-1 to ACC-2.")]]


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The script's turn is the number of model responses in the conversation so far."""
    return ModelResponse(parts=script[sum(isinstance(m, ModelResponse) for m in messages)])


async def transfer_funds(ctx: RunContext[None], from_account: str, to_account: str, amount_cents: int) -> str:
    """Move money between accounts (high risk: needs a human approval)."""
    args = {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}
    return json.dumps(fixture.call("transfer_funds", ctx.tool_call_id, args))


agent = Agent(FunctionModel(scripted), output_type=[str, DeferredToolRequests],
              tools=[Tool(transfer_funds, requires_approval=True)],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")
paused = agent.run_sync("Send 25.00 from ACC-1 to ACC-2.")
snapshot = ModelMessagesTypeAdapter.dump_json(paused.all_messages())  # the pause, saved
approvals = {call.tool_call_id: True for call in paused.output.approvals}
for _delivery in range(2):  # approve; then restore the saved pause and approve again
    agent.run_sync(message_history=ModelMessagesTypeAdapter.validate_json(snapshot),
                   deferred_tool_results=DeferredToolResults(approvals=approvals))

ledger = counts()
report(SCENARIO, {"idempotent_replay.c1.effects": ledger["c1"]["effects"],
                  "side_effects.c1.executor_entries": ledger["c1"]["executor_entries"],
                  "side_effects.c1.effects": ledger["c1"]["effects"]})
