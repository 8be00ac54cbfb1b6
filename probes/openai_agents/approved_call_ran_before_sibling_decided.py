"""The SDK runs an approved call as soon as it is approved, while its sibling in the same turn still waits: the first
transfer moves money (and times out after its effect) before the human has decided the second one. Once the run has
completed, an approval of the second transfer finds no approval item for it: there is nothing to hand the SDK, which
refuses nothing and runs nothing. The contract holds a turn until every call in it is decided, then stops for the
reconcile of the timeout, and refuses the late approval (the call is not pending).

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool(needs_approval=True)``, ``result.interruptions``, ``result.to_state()``, ``state.approve(item)``,
``Runner.run(agent, state)``, deciding only some of the pending calls in one pass
(https://openai.github.io/openai-agents-python/human_in_the_loop/), the default ``failure_error_function``
(https://openai.github.io/openai-agents-python/tools/#handling-errors-in-function-tools), a ``ToolContext`` first
(https://openai.github.io/openai-agents-python/context/), output items from ``agents.testing``
(https://openai.github.io/openai-agents-python/testing/).
"""

import asyncio

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage

from harness.column_side.probe_kit import Fault, counts, report, world

SCENARIO = "uncertain_then_second_transfer"
SHOWS = ("pre_approval_state.decisions.1.effects_before", "step_statuses.1", "step_statuses.2", "step_statuses.4")

fixture = world(Fault("tool.timeout_after_effect", call_id="t1"))
SCRIPT = [{"tool_calls": [{"id": "t1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}},
                          {"id": "t2", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-3", "amount_cents": 100}}]},
          {"text": "done"}]


class Scripted(Model):
    """Answers the script's turn k, where k is the number of model turns already in its input (a run of consecutive
    ``function_call`` items is one turn)."""

    async def get_response(self, system_instructions, input, *args, **kwargs) -> ModelResponse:
        kinds = ["function_call" if item.get("type") == "function_call" else item.get("role") for item in input]
        turn = sum(1 for i, k in enumerate(kinds) if k == "assistant" or (k == "function_call" and (i == 0 or kinds[i - 1] != "function_call")))
        step = SCRIPT[turn]
        calls = [function_call(c["name"], c["arguments"], call_id=c["id"]) for c in step.get("tool_calls", [])]
        return ModelResponse(output=calls or [assistant_message(step["text"])], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


@function_tool(needs_approval=True)
def transfer_funds(ctx: ToolContext, from_account: str, to_account: str, amount_cents: int) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    args = {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}
    return str(fixture.call("transfer_funds", ctx.tool_call_id, args))


async def main() -> dict:
    agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
                  model=Scripted(), tools=[transfer_funds])
    result = await Runner.run(agent, "Send 25.00 to ACC-2 and 1.00 to ACC-3 from ACC-1.")  # driver step 0: both ask
    statuses, effects_before = {0: "awaiting_approval" if result.interruptions else "completed"}, {}

    async def approve(step: int, call_id: str) -> None:
        """The approval of one call, on its approval item; with no item for the call there is nothing to hand over."""
        nonlocal result
        effects_before[step] = {c: n["effects"] for c, n in counts().items()}
        item = next((i for i in result.interruptions if i.raw_item.call_id == call_id), None)
        if item is not None:
            state = result.to_state()
            state.approve(item)
            result = await Runner.run(agent, state)
        statuses[step] = "awaiting_approval" if result.interruptions else "completed"

    await approve(1, "t1")  # t1 runs now, t2 still asks
    await approve(2, "t2")  # the human decides t2 after t1 already moved money
    # driver step 3, reconcile t1: nothing in the SDK records an uncertain call (the column refuses it; nothing runs)
    entered = sum(n["executor_entries"] for n in counts().values())
    await approve(4, "t2")  # t2 again, after the run completed
    print("executor entries in driver step 4:", sum(n["executor_entries"] for n in counts().values()) - entered)
    return {"pre_approval_state.decisions.1.effects_before": effects_before[2],
            **{f"step_statuses.{i}": statuses[i] for i in (1, 2, 4)}}


set_tracing_disabled(True)
report(SCENARIO, asyncio.run(main()))
