"""``needs_approval=True`` pauses on the model's raw tool call, before the SDK parses its arguments, and only after
the same turn's calls that need no approval ran: the reversible write c1 had its effect before c2 was approved.

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool(needs_approval=True)``, ``result.interruptions``, ``result.to_state()``, ``state.approve(item)`` and
``Runner.run(agent, state)`` (https://openai.github.io/openai-agents-python/human_in_the_loop/), a ``ToolContext``
first (https://openai.github.io/openai-agents-python/context/), pydantic ``Annotated`` arguments
(https://openai.github.io/openai-agents-python/tools/), output items from ``agents.testing``
(https://openai.github.io/openai-agents-python/testing/).
"""

import asyncio
from itertools import pairwise
from typing import Annotated

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage
from pydantic import AfterValidator

from harness.column_side.probe_kit import FIXTURE_TOOLS, counts, report, world

SCENARIO = "high_risk_in_parallel_batch"
SHOWS = (
    "pre_approval_state.decisions.0.effects_before",
    "pre_approval_state.pauses.0.args_validated",
    "pre_approval_state.pauses.0.non_read_only_effects",
    "pre_approval_state.pauses.0.pending.0.call_id",
)

fixture = world()
EMAIL = {"to": "customer@example.org", "subject": "Follow-up", "body": "We will call on Monday."}
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call the customer back on Monday."}},
                          {"id": "c2", "name": "send_email", "arguments": EMAIL}]},
          {"text": "Noted, and the customer is emailed."}]
validated: list[str] = []  # each time the SDK's argument model validated send_email's arguments


class Scripted(Model):
    """Answers the script's turn k, where k is the number of model turns (a run of function calls is one) in its input."""

    async def get_response(self, system_instructions, input, *args, **kwargs) -> ModelResponse:
        kinds = [item.get("role") or item.get("type") for item in input]
        turn = sum(k == "assistant" or (k == "function_call" and p != k) for p, k in pairwise(["user", *kinds]))
        step = SCRIPT[turn]
        calls = [function_call(c["name"], c["arguments"], call_id=c["id"]) for c in step.get("tool_calls", [])]
        return ModelResponse(output=calls or [assistant_message(step["text"])], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


@function_tool
def put_note(ctx: ToolContext, key: str, text: str) -> str:
    """Store a note under a key."""
    return str(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}))


@function_tool(needs_approval=True)
def send_email(ctx: ToolContext, to: Annotated[str, AfterValidator(lambda v: validated.append(v) or v)], subject: str, body: str) -> str:
    """Send an email. High risk: needs a human approval."""
    return str(fixture.call("send_email", ctx.tool_call_id, {"to": to, "subject": subject, "body": body}))


async def main() -> dict:
    agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
                  model=Scripted(), tools=[put_note, send_email])
    paused = await Runner.run(agent, "Note the follow-up and email the customer.")
    validated_at_pause = bool(validated)
    writes = {c: v["effects"] for c, v in counts().items() if FIXTURE_TOOLS[v["tool"]].risk != "read_only"}  # at the pause
    state = paused.to_state()
    state.approve(paused.interruptions[0])  # the driver approves c2, the only pending call
    await Runner.run(agent, state)
    assert validated == ["customer@example.org"], "the approved call runs through the argument model the pause skipped"
    return {"pre_approval_state.pauses.0.args_validated": validated_at_pause, "pre_approval_state.pauses.0.non_read_only_effects": writes,
            "pre_approval_state.pauses.0.pending.0.call_id": paused.interruptions[0].raw_item.call_id,
            "pre_approval_state.decisions.0.effects_before": writes}

set_tracing_disabled(True)
report(SCENARIO, asyncio.run(main()))
