"""An SDK approval item approves the call its ``raw_item`` names: handing over the item of the other pending transfer
(c2's, as the decision for c1) runs c2 at once, while c1 asks again; the rejection of c2 that follows finds no item
pending for it and sends nothing. The SDK refuses neither; the contract refuses the first (an approval made for
another call) outright, and c2 never moves.

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool(needs_approval=True)``, ``result.interruptions``, ``result.to_state()``, ``state.approve(item)`` /
``state.reject(item, rejection_message=...)``, ``Runner.run(agent, state)``
(https://openai.github.io/openai-agents-python/human_in_the_loop/), a ``ToolContext`` first
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

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "approval_misuse_other_call"
SHOWS = ("refusals", "side_effects", "step_statuses")

fixture = world()
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}},
                           {"id": "c2", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-3", "amount_cents": 9900}}]},
          {"text": "Done."}]


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
    result = await Runner.run(agent, "Send 25.00 from ACC-1 to ACC-2 and 99.00 from ACC-1 to ACC-3.")
    statuses = ["awaiting_approval"]
    items = {i.raw_item.call_id: i for i in result.interruptions}
    refusals: list[str] = []

    async def decide(state) -> None:  # a refusal by the SDK is an exception out of the run
        nonlocal result
        try:
            result = await Runner.run(agent, state)
        except Exception as error:
            refusals.append(type(error).__name__)

    state = result.to_state()
    state.approve(items["c2"])  # the decision for c1, made with c2's item
    await decide(state)
    statuses.append("awaiting_approval" if result.interruptions else "completed")
    c2 = next((i for i in result.interruptions if i.raw_item.call_id == "c2"), None)
    if c2 is not None:  # the rejection of c2: only with an item pending for it
        state = result.to_state()
        state.reject(c2, rejection_message="not this one")
        await decide(state)
    statuses.append("awaiting_approval" if result.interruptions else "completed")
    ledger = {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in counts().items()}
    return {"step_statuses": statuses, "side_effects": ledger, "refusals": refusals}

set_tracing_disabled(True)
report(SCENARIO, asyncio.run(main()))
