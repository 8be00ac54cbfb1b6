"""Pydantic AI has no event id, and a paused run continues only with its ``DeferredToolResults``: the same inbound
message delivered again while a transfer waits for approval (a retried webhook) raises ``UserError`` (a new prompt
with unprocessed tool calls in the history), where the contract ignores the second delivery. Nothing else changed:
the approval that follows, given with the same saved history, runs the transfer once.

Documented API only: a ``requires_approval`` tool, the ``DeferredToolRequests`` output and ``DeferredToolResults``
(https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval), the history saved with
``ModelMessagesTypeAdapter`` and passed back as ``message_history``
(https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json), a scripted
``FunctionModel`` (https://pydantic.dev/docs/ai/guides/testing/).
"""

import json

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ModelMessagesTypeAdapter, RunContext
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "redelivery_while_pending"
SHOWS = ("side_effects.c1.effects", "step_statuses")

fixture = world()
PROMPT = "Send 25.00 from ACC-1 to ACC-2."
script = [[ToolCallPart("transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}, tool_call_id="c1")],
          [TextPart("Sent 25.00 from ACC-1 to ACC-2.")]]


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The script's turn is the number of model responses in the conversation so far."""
    return ModelResponse(parts=script[sum(isinstance(m, ModelResponse) for m in messages)])


agent = Agent(FunctionModel(scripted), output_type=[str, DeferredToolRequests],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")


@agent.tool(requires_approval=True)
async def transfer_funds(ctx: RunContext[None], from_account: str, to_account: str, amount_cents: int) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return json.dumps(fixture.call("transfer_funds", ctx.tool_call_id, {"from_account": from_account, "to_account": to_account,
                                                                         "amount_cents": amount_cents}))


def status(output: object) -> str:
    return "awaiting_approval" if isinstance(output, DeferredToolRequests) else "completed"


first = agent.run_sync(PROMPT)  # the event e1: the transfer waits
saved, statuses = ModelMessagesTypeAdapter.dump_json(first.all_messages()), [status(first.output)]
try:  # the same event delivered again, on the saved history
    again = agent.run_sync(PROMPT, message_history=ModelMessagesTypeAdapter.validate_json(saved))
    saved, statuses = ModelMessagesTypeAdapter.dump_json(again.all_messages()), [*statuses, status(again.output)]
except UserError as exc:
    print("redelivery:", type(exc).__name__, str(exc)[:90])
    statuses.append("error")
approved = agent.run_sync(message_history=ModelMessagesTypeAdapter.validate_json(saved), deferred_tool_results=DeferredToolResults(approvals={"c1": True}))
statuses.append(status(approved.output))
report(SCENARIO, {"side_effects.c1.effects": counts()["c1"]["effects"], "step_statuses": statuses})
