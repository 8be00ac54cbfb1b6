"""ADK runs a turn's calls as concurrent tasks and holds only the one that asks for confirmation: the note ``c1`` is
written before the human has seen the email ``c2`` (the contract holds the whole turn until the decision). And the
run pauses on the email before anything checked its arguments: ADK's confirmation gate answers the call before
``FunctionTool.run_async`` looks at them (the missing-argument check), and the type check that would run the
validator on ``to`` (the experimental ``FUNCTION_TOOL_ARG_VALIDATION``) is off by default: the validator has not run
at the pause (nor after the approval).

Documented API only, through the kit (``_kit.py``): ``FunctionTool(..., require_confirmation=True)`` on a typed
function whose parameter carries a pydantic ``AfterValidator``
(https://google.github.io/adk-docs/tools-custom/function-tools/,
https://google.github.io/adk-docs/tools-custom/confirmation/), answered with the ``adk_request_confirmation`` call's
``FunctionResponse`` sent with its ``invocation_id``; a scripted ``BaseLlm`` (https://google.github.io/adk-docs/agents/models/).
"""

from typing import Annotated

from _kit import answer, call, deliver, effects, scripted_app, text, tool, tool_output, waiting
from google.adk.tools import ToolContext
from pydantic import AfterValidator

from harness.column_side.probes.kit import report, world

SCENARIO = "high_risk_in_parallel_batch"
SHOWS = (
    "pre_approval_state.decisions.0.effects_before",
    "pre_approval_state.pauses.0.args_validated",
    "pre_approval_state.pauses.0.non_read_only_effects",
    "pre_approval_state.pauses.0.pending.0.call_id",
)

fixture, validated = world(), []  # validated: each time something ran the validator of send_email's ``to``
EMAIL = {"to": "customer@example.org", "subject": "Follow-up", "body": "We will call on Monday."}
SCRIPT = [[call("c1", "put_note", key="followup", text="Call the customer back on Monday."), call("c2", "send_email", **EMAIL)],
          [text("Noted, and the customer is emailed.")]]


async def send_email(to: Annotated[str, AfterValidator(lambda v: validated.append(v) or v)], subject: str, body: str, tool_context: ToolContext) -> dict:
    return tool_output(fixture, "send_email", tool_context, to=to, subject=subject, body=body)


app = scripted_app(SCRIPT, fixture, "put_note", tool(send_email))
deliver(app, "Note the follow-up and email the customer.")  # driver step 0: c1 runs, c2 waits
pending, at_pause, validated_at_pause = list(waiting()), effects(), bool(validated)
answer(app, {"c2": True})  # step 1: approve c2
print(f"the validator of send_email's to ran {len(validated)} times in all")
report(SCENARIO, {"pre_approval_state.pauses.0.args_validated": validated_at_pause, "pre_approval_state.pauses.0.non_read_only_effects": at_pause,
                  "pre_approval_state.pauses.0.pending.0.call_id": pending[0], "pre_approval_state.decisions.0.effects_before": at_pause})
