"""AgentScope's toolkit turns every exception of a tool, a ``TimeoutError`` after the transfer's effect included, into
an error result for the model: the reply does not stop for reconciliation, the call is not retried, and the reply
goes on to the model's next turn and completes (the driver's reconcile then has nothing to settle).

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system), through
``_kit.py``: ``Agent`` over its default ``AgentState``, the approval a ``UserConfirmResultEvent``, the
``ToolResultEndEvent`` ``reply_stream`` streamed.
"""

from _kit import Driver, Scripted, calls_per_turn, fixture_tools
from agentscope.event import ToolResultEndEvent
from agentscope.message import UserMsg

from harness.column_side.probes.kit import Fault, counts, report, world

SCENARIO = "uncertain_after_timeout"
SHOWS = ("model.calls_per_turn", "side_effects.c1", "step_statuses.0", "step_statuses.1")
SCRIPT = [[("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent 25.00 from ACC-1 to ACC-2."]

run = Driver(Scripted(SCRIPT), fixture_tools(world(Fault("tool.timeout_after_effect", call_id="c1")), "transfer_funds"))
statuses = [run.step(UserMsg(name="user", content="Send 25.00 from ACC-1 to ACC-2."))]
statuses.append(run.step(run.confirmation(run.asking()[0])))  # the human approves
for event in run.events:
    if isinstance(event, ToolResultEndEvent):
        print(f"tool result of {event.tool_call_id}: {event.state}")
report(SCENARIO, {
    **{f"step_statuses.{i}": s for i, s in enumerate(statuses)},  # then the column refuses the reconcile: AgentScope has none
    "side_effects.c1": {k: counts()["c1"][k] for k in ("tool_entries", "executor_entries", "effects")},
    "model.calls_per_turn": calls_per_turn(),
})
