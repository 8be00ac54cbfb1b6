"""Pydantic AI has no event id, and a paused run continues only with its ``DeferredToolResults``: the same inbound
message delivered again while a transfer waits for approval (a retried webhook) raises ``UserError`` (a new prompt
with unprocessed tool calls in the history), where the contract ignores the second delivery. Nothing else changed:
the approval that follows, given with the same saved history, runs the transfer once.

Documented API only, through the kit (``_kit.py``): a ``requires_approval`` tool, the ``DeferredToolRequests`` output and
``DeferredToolResults`` (https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval), the
history saved with ``ModelMessagesTypeAdapter`` and passed back as ``message_history``
(https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json), a scripted ``FunctionModel``.
"""

from _kit import run_saved, status, support_agent
from pydantic_ai import DeferredToolResults
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "redelivery_while_pending"
SHOWS = ("side_effects.c1.effects", "step_statuses")

PROMPT = "Send 25.00 from ACC-1 to ACC-2."
SCRIPT = [[ToolCallPart("transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}, tool_call_id="c1")],
          [TextPart("Sent 25.00 from ACC-1 to ACC-2.")]]

agent = support_agent(SCRIPT, world(), "transfer_funds")
statuses = [status(run_saved(agent, user_prompt=PROMPT).output)]  # the event e1: the transfer waits
try:  # the same event delivered again, on the saved history
    statuses.append(status(run_saved(agent, user_prompt=PROMPT).output))
except UserError as exc:
    print("redelivery:", type(exc).__name__, str(exc)[:90])
    statuses.append("error")
statuses.append(status(run_saved(agent, deferred_tool_results=DeferredToolResults(approvals={"c1": True})).output))
report(SCENARIO, {"side_effects.c1.effects": counts()["c1"]["effects"], "step_statuses": statuses})
