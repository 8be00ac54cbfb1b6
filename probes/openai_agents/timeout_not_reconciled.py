"""A ``TimeoutError`` raised after the approved transfer had its effect is an ordinary tool error to the SDK: the default
``failure_error_function`` answers the model with an error message and the run completes, with nothing recorded that
the call's outcome is uncertain (the engine stops with ``reconcile_required``).

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool(needs_approval=True)``, ``result.interruptions``, ``result.to_state()``, ``state.approve(item)``,
``Runner.run(agent, state)`` (https://openai.github.io/openai-agents-python/human_in_the_loop/), the default
``failure_error_function`` (https://openai.github.io/openai-agents-python/tools/#handling-errors-in-function-tools),
a ``ToolContext`` first (https://openai.github.io/openai-agents-python/context/), output items from ``agents.testing``
(https://openai.github.io/openai-agents-python/testing/).
"""

import asyncio

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse, ToolCallOutputItem
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage

from harness.column_side.probe_kit import Fault, counts, report, world

SCENARIO = "uncertain_after_timeout"
SHOWS = ("side_effects.c1.effects", "step_statuses.0", "step_statuses.1")

fixture = world(Fault("tool.timeout_after_effect", call_id="c1"))
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}}]},
          {"text": "Sent 25.00 from ACC-1 to ACC-2."}]


class Scripted(Model):
    """Answers the script's turn k, where k is the number of model turns already in its input."""

    async def get_response(self, system_instructions, input, *args, **kwargs) -> ModelResponse:
        turn = sum(1 for item in input if item.get("type") == "function_call" or item.get("role") == "assistant")
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
    statuses, result = [], await Runner.run(agent, "Send 25.00 from ACC-1 to ACC-2.")
    statuses.append("awaiting_approval" if result.interruptions else "completed")
    state = result.to_state()
    state.approve(result.interruptions[0])
    result = await Runner.run(agent, state)
    statuses.append("awaiting_approval" if result.interruptions else "completed")
    print("the model was told:", [i.raw_item["output"] for i in result.new_items if isinstance(i, ToolCallOutputItem)])
    return {"step_statuses.0": statuses[0], "step_statuses.1": statuses[1], "side_effects.c1.effects": counts()["c1"]["effects"]}


set_tracing_disabled(True)
report(SCENARIO, asyncio.run(main()))
