"""Pydantic AI's approval is a ``call_id -> True | ToolApproved | ToolDenied`` entry of ``DeferredToolResults``; the
only one naming arguments is ``ToolApproved(override_args=...)``. An approval carrying other arguments than the
model's call (the amount changed) is taken at once: the transfer runs and the run completes, where the contract
refuses an approval made for other arguments.

Documented API only: ``requires_approval=True``, ``output_type=[str, DeferredToolRequests]``, a new run with the
history and ``DeferredToolResults(approvals={call_id: ToolApproved(override_args=...)})``
(https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval); typed function tools
(https://pydantic.dev/docs/ai/tools-toolsets/tools/); a scripted ``FunctionModel`` (https://pydantic.dev/docs/ai/guides/testing/).
"""

import json

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool, ToolApproved
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "approval_misuse_other_args"
SHOWS = ("side_effects.c1.effects", "step_statuses")

fixture = world()
move = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
script = [[ToolCallPart("transfer_funds", move, tool_call_id="c1")], [TextPart("Sent.")]]


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The script's turn is the number of model responses in the conversation so far."""
    return ModelResponse(parts=script[sum(isinstance(m, ModelResponse) for m in messages)])


async def transfer_funds(ctx: RunContext[None], from_account: str, to_account: str, amount_cents: int) -> str:
    """Move money between accounts (high risk: needs a human approval)."""
    args = {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}
    return json.dumps(fixture.call("transfer_funds", ctx.tool_call_id, args))


def status(run) -> str:
    """The run's state as the driver reads it: paused for approval, or finished."""
    return "awaiting_approval" if isinstance(run.output, DeferredToolRequests) else "completed"


agent = Agent(FunctionModel(scripted), output_type=[str, DeferredToolRequests],
              tools=[Tool(transfer_funds, requires_approval=True)],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")
state = agent.run_sync("Send 25.00 from ACC-1 to ACC-2.")
statuses = [status(state)]
edited = ToolApproved(override_args={**move, "amount_cents": 2501})
state = agent.run_sync(message_history=state.all_messages(), deferred_tool_results=DeferredToolResults(approvals={"c1": edited}))
statuses.append(status(state))
report(SCENARIO, {"side_effects.c1.effects": counts()["c1"]["effects"], "step_statuses": statuses})
