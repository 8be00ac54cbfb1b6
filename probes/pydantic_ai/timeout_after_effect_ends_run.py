"""Pydantic AI has no uncertain outcome: an approved transfer that times out after its effect raises out of the
run, which ends in an error instead of stopping for reconciliation; the model is never told (the contract stops in
``reconcile_required`` and never retries by itself).

Documented API only: ``requires_approval=True`` and a second run with ``DeferredToolResults``
(https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval); a tool's exception
propagates (https://pydantic.dev/docs/ai/tools-toolsets/tools-advanced/#tool-retries); a scripted ``FunctionModel``
(https://pydantic.dev/docs/ai/guides/testing/).
"""

import json
from collections import Counter

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import Fault, counts, report, world

SCENARIO = "uncertain_after_timeout"
SHOWS = (
    "model.calls_per_turn",
    "model.unused_turns",
    "side_effects.c1.effects",
    "status",
    "step_statuses.0",
    "step_statuses.1",
)

fixture = world(Fault("tool.timeout_after_effect", call_id="c1"))
script = [[ToolCallPart("transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}, tool_call_id="c1")],
          [TextPart("Sent 25.00 from ACC-1 to ACC-2.")]]
asked: Counter[int] = Counter()


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The script's turn is the number of model responses in the conversation so far."""
    turn = sum(isinstance(m, ModelResponse) for m in messages)
    asked[turn] += 1
    return ModelResponse(parts=script[turn])


async def transfer_funds(ctx: RunContext[None], from_account: str, to_account: str, amount_cents: int) -> str:
    """Move money between accounts (high risk: needs a human approval)."""
    args = {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}
    return json.dumps(fixture.call("transfer_funds", ctx.tool_call_id, args))


agent = Agent(FunctionModel(scripted), output_type=[str, DeferredToolRequests],
              tools=[Tool(transfer_funds, requires_approval=True)],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")
paused = agent.run_sync("Send 25.00 from ACC-1 to ACC-2.")
statuses = ["awaiting_approval" if isinstance(paused.output, DeferredToolRequests) else "completed"]
try:
    agent.run_sync(message_history=paused.all_messages(),
                   deferred_tool_results=DeferredToolResults(approvals={c.tool_call_id: True for c in paused.output.approvals}))
    statuses.append("completed")
except TimeoutError as error:  # the measurement: the tool's timeout ends the run
    statuses.append("error")
    print(f"run ended by TimeoutError: {error}")

report(SCENARIO, {"model.calls_per_turn": {str(t): n for t, n in sorted(asked.items())},
                  "model.unused_turns": sorted(set(range(len(script))) - set(asked)),
                  "side_effects.c1.effects": counts()["c1"]["effects"],
                  "step_statuses.0": statuses[0], "step_statuses.1": statuses[1], "status": statuses[-1]})
