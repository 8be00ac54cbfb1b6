"""Pydantic AI runs the calls of a turn that need no approval before it pauses for the one that does: the note
is written before the human has seen the email (the contract holds the whole turn until the approval).

Documented API only, through the kit (``_kit.py``): ``requires_approval=True`` on the high-risk tool,
``output_type=[str, DeferredToolRequests]``, and a second run with the message history and ``DeferredToolResults``
built from ``requests.approvals`` (https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval);
typed function tools; a scripted ``FunctionModel``.
"""

from _kit import approve_all, decide, effects, support_agent
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import report, world

SCENARIO = "high_risk_in_parallel_batch"
SHOWS = ("pre_approval_state.pauses.0.non_read_only_effects", "pre_approval_state.pauses.0.pending.0.call_id")

email = {"to": "customer@example.org", "subject": "Follow-up", "body": "We will call on Monday."}
SCRIPT = [[ToolCallPart("put_note", {"key": "followup", "text": "Call the customer back on Monday."}, tool_call_id="c1"),
           ToolCallPart("send_email", email, tool_call_id="c2")],
          [TextPart("Noted, and the customer is emailed.")]]

agent = support_agent(SCRIPT, world(), "put_note", "send_email")
paused = agent.run_sync("Note the follow-up and email the customer.")
at_pause = effects()  # every call entered so far
decide(agent, paused.all_messages(), approve_all(paused.output))
report(SCENARIO, {"pre_approval_state.pauses.0.pending.0.call_id": paused.output.approvals[0].tool_call_id,
                  "pre_approval_state.pauses.0.non_read_only_effects": at_pause})
