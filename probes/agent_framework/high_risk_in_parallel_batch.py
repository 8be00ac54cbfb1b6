"""Agent Framework pauses on a call that needs approval before anything checked its arguments: the email ``c2`` is
turned into a ``function_approval_request`` as the model sent it, and the pydantic validation the framework runs on a
tool's arguments (which runs the validator on ``to``) comes only when the approved call is about to run. The contract
validates the whole turn before it pauses. The note ``c1`` of the same turn waits with it (the session keeps it until
the batch resumes), as the contract holds it.

Documented API only, through the kit (``_kit.py``): ``tool(..., approval_mode="always_require")`` on a typed ``async``
function whose parameter carries a pydantic ``AfterValidator``
(https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools, "Use type annotations and Pydantic";
https://learn.microsoft.com/en-us/agent-framework/agents/tools/tool-approval), answered with
``request.to_function_approval_response(approved=True)`` as a new run on the session saved with ``to_dict()``
(https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session); the kit's scripted chat client and
pass-through function middleware (there only to hand the tool its call id for the ledger).
"""

from typing import Annotated

from _kit import answer, call, deliver, effects, every_side_effect, fixture_tool, support_agent, text, tool_output, waiting
from agent_framework import FunctionInvocationContext
from pydantic import AfterValidator

from harness.column_side.probes.kit import report, world

SCENARIO = "high_risk_in_parallel_batch"
SHOWS = (
    "pre_approval_state.decisions.0.effects_before",
    "pre_approval_state.pauses.0.args_validated",
    "pre_approval_state.pauses.0.non_read_only_effects",
    "pre_approval_state.pauses.0.pending.0.call_id",
    "side_effects",
    "step_statuses",
)

fixture, validated = world(), []  # validated: each time something ran the validator of send_email's ``to``
EMAIL = {"to": "customer@example.org", "subject": "Follow-up", "body": "We will call on Monday."}
SCRIPT = [[call("c1", "put_note", key="followup", text="Call the customer back on Monday."), call("c2", "send_email", **EMAIL)],
          [text("Noted, and the customer is emailed.")]]


async def send_email(ctx: FunctionInvocationContext, *, to: Annotated[str, AfterValidator(lambda v: validated.append(v) or v)], subject: str,
                     body: str) -> dict:  # fmt: skip
    return tool_output(fixture, "send_email", ctx, to=to, subject=subject, body=body)


agent = support_agent(SCRIPT, fixture, "put_note", fixture_tool(send_email))
statuses = [deliver(agent, "Note the follow-up and email the customer.")]  # driver step 0: the turn waits on c2
pending, at_pause, validated_at_pause = list(waiting()), effects(), bool(validated)
statuses.append(answer(agent, {"c2": True}))  # step 1: approve c2
print(f"the validator of send_email's to ran {len(validated)} times in all")
report(SCENARIO, {"pre_approval_state.pauses.0.args_validated": validated_at_pause, "pre_approval_state.pauses.0.non_read_only_effects": at_pause,
                  "pre_approval_state.pauses.0.pending.0.call_id": pending[0], "pre_approval_state.decisions.0.effects_before": at_pause,
                  "side_effects": every_side_effect(), "step_statuses": statuses})
