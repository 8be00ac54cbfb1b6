"""Pydantic AI's approval is a ``call_id -> True | ToolApproved | ToolDenied`` entry of ``DeferredToolResults``; the
only one naming arguments is ``ToolApproved(override_args=...)``. An approval carrying other arguments than the
model's call (the amount changed) is taken at once: the transfer runs and the run completes, where the contract
refuses an approval made for other arguments.

Documented API only, through the kit (``_kit.py``): ``requires_approval=True``, ``output_type=[str, DeferredToolRequests]``,
a new run with the history and ``DeferredToolResults(approvals={call_id: ToolApproved(override_args=...)})``
(https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval); a scripted ``FunctionModel``.
"""

from _kit import decide, status, support_agent
from pydantic_ai import ToolApproved
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "approval_misuse_other_args"
SHOWS = ("side_effects.c1.effects", "step_statuses")

move = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [[ToolCallPart("transfer_funds", move, tool_call_id="c1")], [TextPart("Sent.")]]

agent = support_agent(SCRIPT, world(), "transfer_funds")
paused = agent.run_sync("Send 25.00 from ACC-1 to ACC-2.")
edited = ToolApproved(override_args={**move, "amount_cents": 2501})
approved = decide(agent, paused.all_messages(), {"c1": edited})
report(SCENARIO, {"side_effects.c1.effects": counts()["c1"]["effects"], "step_statuses": [status(paused.output), status(approved.output)]})
