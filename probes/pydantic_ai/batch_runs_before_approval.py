"""Pydantic AI runs the calls of a turn that need no approval before it pauses for the one that does: the note
is written before the human has seen the email (the contract holds the whole turn until the approval).

Documented API only: ``requires_approval=True`` on the high-risk tool, ``output_type=[str, DeferredToolRequests]``,
and a second run with the message history and ``DeferredToolResults`` built from ``requests.approvals``
(https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval); typed function tools
(https://pydantic.dev/docs/ai/tools-toolsets/tools/); a scripted ``FunctionModel`` (https://pydantic.dev/docs/ai/guides/testing/).
"""

import json

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "high_risk_in_parallel_batch"
SHOWS = ("pre_approval_state.pauses.0.non_read_only_effects", "pre_approval_state.pauses.0.pending.0.call_id")

fixture = world()
email = {"to": "customer@example.org", "subject": "Follow-up", "body": "We will call on Monday."}
script = [
    [ToolCallPart("put_note", {"key": "followup", "text": "Call the customer back on Monday."}, tool_call_id="c1"),
     ToolCallPart("send_email", email, tool_call_id="c2")],
    [TextPart("Noted, and the customer is emailed.")],
]


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The script's turn is the number of model responses in the conversation so far."""
    return ModelResponse(parts=script[sum(isinstance(m, ModelResponse) for m in messages)])


async def put_note(ctx: RunContext[None], key: str, text: str) -> str:
    """Store a note under a key."""
    return json.dumps(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}))


async def send_email(ctx: RunContext[None], to: str, subject: str, body: str) -> str:
    """Send an email (high risk: needs a human approval)."""
    return json.dumps(fixture.call("send_email", ctx.tool_call_id, {"to": to, "subject": subject, "body": body}))


agent = Agent(FunctionModel(scripted), output_type=[str, DeferredToolRequests],
              tools=[put_note, Tool(send_email, requires_approval=True)],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")
paused = agent.run_sync("Note the follow-up and email the customer.")
pending = [call.tool_call_id for call in paused.output.approvals]
at_pause = {call_id: entry["effects"] for call_id, entry in counts().items()}  # every call entered so far
agent.run_sync(message_history=paused.all_messages(),
               deferred_tool_results=DeferredToolResults(approvals={call_id: True for call_id in pending}))

report(SCENARIO, {"pre_approval_state.pauses.0.pending.0.call_id": pending[0],
                  "pre_approval_state.pauses.0.non_read_only_effects": at_pause})
