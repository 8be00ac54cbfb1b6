"""``needs_approval=True`` pauses on the model's raw tool call, before the SDK parses its arguments, and only after
the same turn's calls that need no approval ran: the reversible write c1 had its effect before c2 was approved.

Documented API only, through ``_kit.py``: ``@function_tool(needs_approval=True)``,
``result.interruptions``, ``result.to_state()``, ``state.approve(item)`` and ``Runner.run(agent, state)``
(https://openai.github.io/openai-agents-python/human_in_the_loop/), pydantic ``Annotated`` arguments
(https://openai.github.io/openai-agents-python/tools/).
"""

from typing import Annotated

from _kit import approve, fixture_tools, run, support_agent, tool_output
from agents import function_tool
from agents.tool_context import ToolContext
from pydantic import AfterValidator

from harness.column_side.probes.kit import FIXTURE_TOOLS, counts, report, world

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


@function_tool(needs_approval=True)
def send_email(ctx: ToolContext, to: Annotated[str, AfterValidator(lambda v: validated.append(v) or v)], subject: str, body: str) -> str:
    """Send an email. High risk: needs a human approval."""
    return tool_output(fixture, ctx, "send_email", to=to, subject=subject, body=body)


agent = support_agent(SCRIPT, fixture_tools(fixture)["put_note"], send_email)
paused = run(agent, "Note the follow-up and email the customer.")
validated_at_pause = bool(validated)
writes = {c: v["effects"] for c, v in counts().items() if FIXTURE_TOOLS[v["tool"]].risk != "read_only"}  # at the pause
run(agent, approve(paused, paused.interruptions[0]))  # the driver approves c2, the only pending call
assert validated == ["customer@example.org"], "the approved call runs through the argument model the pause skipped"
report(SCENARIO, {"pre_approval_state.pauses.0.args_validated": validated_at_pause, "pre_approval_state.pauses.0.non_read_only_effects": writes,
                  "pre_approval_state.pauses.0.pending.0.call_id": paused.interruptions[0].raw_item.call_id,
                  "pre_approval_state.decisions.0.effects_before": writes})
