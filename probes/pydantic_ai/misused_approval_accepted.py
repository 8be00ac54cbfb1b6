"""Pydantic AI's approval carries no token: a decision is a ``call_id -> True`` entry, so the first misused token
(for other arguments) already approves and runs ``c1``, and the reused token approves ``c2``, the identical second
transfer the human then means to reject: money moves twice (the contract refuses all five misuses).

Documented API only: ``requires_approval=True``, ``output_type=[str, DeferredToolRequests]``, a new run with the
history and ``DeferredToolResults`` built from ``requests.approvals`` (a decision on a call the run does not wait on
is not handed over) (https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval);
typed function tools (https://pydantic.dev/docs/ai/tools-toolsets/tools/); a scripted ``FunctionModel``
(https://pydantic.dev/docs/ai/guides/testing/).
"""

import json

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool, ToolDenied
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "approval_token_misuse"
SHOWS = ("refusals", "side_effects.c1.effects", "side_effects.c2.effects", "step_statuses")

fixture = world()
move = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
script = [[ToolCallPart("transfer_funds", move, tool_call_id="c1")],
          [ToolCallPart("transfer_funds", move, tool_call_id="c2")],
          [TextPart("Sent once; the second transfer was not approved.")]]


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
statuses, refusals = [], []
# The driver's steps after the run: four misused tokens on c1, the approval of c1, a reused token on c2, a rejection.
for call_id, decision in [("c1", True)] * 5 + [("c2", True), ("c2", ToolDenied("duplicate transfer"))]:
    statuses.append(status(state))
    waiting = [c.tool_call_id for c in state.output.approvals] if status(state) == "awaiting_approval" else []
    if call_id in waiting:  # a misused token is the same approval: there is no token to check
        try:
            state = agent.run_sync(message_history=state.all_messages(),
                                   deferred_tool_results=DeferredToolResults(approvals={call_id: decision}))
        except UserError as error:  # what Pydantic AI would refuse
            refusals.append(str(error))
statuses.append(status(state))

ledger = counts()
report(SCENARIO, {"side_effects.c1.effects": ledger["c1"]["effects"], "side_effects.c2.effects": ledger["c2"]["effects"],
                  "step_statuses": statuses, "refusals": refusals})
