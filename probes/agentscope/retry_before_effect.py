"""A tool that fails before its effect is not retried: the note asks for confirmation (default mode) and, confirmed as
the driver answers a question the contract would not have asked, its function raises before the effect; AgentScope
hands the error to the model as the call's result and the model closes the turn, so the note is entered once and never
written.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system), through
``_kit.py``: ``Agent`` over its default ``AgentState``, a ``UserConfirmResultEvent`` confirming the asking
``ToolCallBlock``, the ``ToolResultEndEvent`` ``reply_stream`` streamed.
"""

from _kit import Driver, Scripted, calls_per_turn, fixture_tools
from agentscope.event import ToolResultEndEvent
from agentscope.message import UserMsg

from harness.column_side.probes.kit import Fault, counts, report, world

SCENARIO = "retry_before_effect"
SHOWS = (
    "model.calls_per_turn",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "status",
    "step_statuses",
)
SCRIPT = [[("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], "The note is saved."]

run = Driver(Scripted(SCRIPT), fixture_tools(world(Fault("tool.raise_before_effect", call_id="c1")), "put_note"))
status = run.step(UserMsg(name="user", content="Save a follow-up note."))
print("AgentScope's results:", [(e.tool_call_id, str(e.state)) for e in run.events if isinstance(e, ToolResultEndEvent)])
c1 = counts().get("c1", {"tool_entries": 0, "executor_entries": 0, "effects": 0})
report(SCENARIO, {
    "status": status, "step_statuses": [status], "model.calls_per_turn": calls_per_turn(),
    **{f"side_effects.c1.{k}": c1[k] for k in ("tool_entries", "executor_entries", "effects")},
})
