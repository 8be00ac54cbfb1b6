"""A model turn that calls a tool the agent was not given ends the run: the runner raises ``ModelBehaviorError``
("Tool get_balance not found in agent support"), so ``Runner.run`` raises it, where the contract answers the call as an
error result the model reads and goes on (the model would have finished). Nothing runs; the model is asked once.

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool`` with a ``ToolContext`` first (https://openai.github.io/openai-agents-python/tools/), ``Runner.run``
(https://openai.github.io/openai-agents-python/running_agents/) and ``ModelBehaviorError``
(https://openai.github.io/openai-agents-python/ref/exceptions/: "calling a tool that doesn't exist"), output items from
``agents.testing`` (https://openai.github.io/openai-agents-python/testing/).
"""

import asyncio
import json
from collections import Counter

from agents import Agent, ModelBehaviorError, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "unknown_tool_called"
SHOWS = ("model.calls_per_turn", "status", "step_statuses")

fixture = world()
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_balance", "arguments": {"account": "ACC-2"}}]}, {"text": "Done."}]
asked = Counter()  # model calls per turn


class Scripted(Model):
    """Answers the script's turn k, where k is the number of model turns already in its input."""

    async def get_response(self, system_instructions, input, *args, **kwargs) -> ModelResponse:
        turn = sum(1 for item in input if item.get("type") == "function_call" or item.get("role") == "assistant")
        asked[str(turn)] += 1
        step = SCRIPT[turn]
        calls = [function_call(c["name"], c["arguments"], call_id=c["id"]) for c in step.get("tool_calls", [])]
        return ModelResponse(output=calls or [assistant_message(step["text"])], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


@function_tool
def put_note(ctx: ToolContext, key: str, text: str) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return json.dumps(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}), sort_keys=True, separators=(",", ":"))


set_tracing_disabled(True)
agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
              model=Scripted(), tools=[put_note])  # the scenario offers put_note only
try:
    asyncio.run(Runner.run(agent, "Please take care of my request."))
    status = "completed"
except ModelBehaviorError as error:  # out of Runner.run: the run is over
    print(f"Runner.run raised {type(error).__module__}.{type(error).__name__}: {error}")
    status = "error"

assert counts() == {}, counts()  # nothing entered any tool
report(SCENARIO, {"status": status, "step_statuses": [status], "model.calls_per_turn": dict(asked)})
