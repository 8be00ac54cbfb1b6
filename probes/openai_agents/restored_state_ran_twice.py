"""The SDK keeps no record of executed tool call ids: approving a restored copy of the paused ``RunState`` (saved with
``to_json()`` before the first approval) runs the already-approved-and-executed transfer again.

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool(needs_approval=True)``, ``result.to_state()``, ``state.to_json()``, ``RunState.from_json(agent, data)``,
``state.approve(item)``, ``Runner.run(agent, state, session=...)``
(https://openai.github.io/openai-agents-python/human_in_the_loop/), ``SQLiteSession``
(https://openai.github.io/openai-agents-python/sessions/), a ``ToolContext`` first
(https://openai.github.io/openai-agents-python/context/), output items from ``agents.testing``
(https://openai.github.io/openai-agents-python/testing/).
"""

import asyncio
import json

from agents import Agent, Runner, RunState, SQLiteSession, function_tool, set_tracing_disabled
from agents.items import ModelResponse, ToolCallOutputItem
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage

from harness.column_side.probe_kit import SCRATCH, counts, report, world

SCENARIO = "resume_same_state_twice"
SHOWS = (
    "idempotent_replay.c1.effects",
    "idempotent_replay.c1.results",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
)

fixture = world()
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
    return json.dumps(fixture.call("transfer_funds", ctx.tool_call_id, args), sort_keys=True, separators=(",", ":"))


async def main() -> dict:
    agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
                  model=Scripted(), tools=[transfer_funds])
    session = SQLiteSession("sess-resume_same_state_twice", str(SCRATCH / "session.sqlite"))
    paused = await Runner.run(agent, "Send 25.00 from ACC-1 to ACC-2.", session=session)
    snapshot = json.dumps(paused.to_state().to_json())  # the driver's snapshot of the paused run
    answers = []
    for _ in ("approve", "restore, then approve"):
        state = await RunState.from_json(agent, json.loads(snapshot))
        state.approve(state.get_interruptions()[0])
        result = await Runner.run(agent, state, session=session)
        answers += [i.raw_item["output"] for i in result.new_items if isinstance(i, ToolCallOutputItem)]
    ledger = counts()
    return {**{f"side_effects.c1.{k}": ledger["c1"][k] for k in ("tool_entries", "executor_entries", "effects")},
            "idempotent_replay.c1.effects": ledger["c1"]["effects"], "idempotent_replay.c1.results": answers}


set_tracing_disabled(True)
report(SCENARIO, asyncio.run(main()))
