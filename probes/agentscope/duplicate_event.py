"""AgentScope has no inbound event id: the same user message delivered again (a retried webhook) is a new input. The
note of the first delivery asks for confirmation (default mode) and, confirmed as the driver answers a question the
contract would not have asked, is written once; the second delivery is a new turn of the conversation, so the model
is asked for a turn beyond the script, nothing is refused and no result is replayed.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system), through
``_kit.py``: ``Agent`` over its default ``AgentState``, a ``UserConfirmResultEvent`` confirming the asking
``ToolCallBlock``, the results ``reply_stream`` streamed. A refusal would be AgentScope's ``ValueError``.
"""

from _kit import Driver, Scripted, calls_per_turn, fixture_tools, missing_turns, side_effects, tool_results
from agentscope.message import UserMsg

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "duplicate_event"
SHOWS = (
    "idempotent_replay.c1.effects",
    "idempotent_replay.c1.results",
    "model.calls_per_turn",
    "model.missing_turns",
    "refusals",
    "side_effects",
    "step_statuses",
)
SCRIPT = [[("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], "The note is saved."]

run = Driver(Scripted(SCRIPT), fixture_tools(world(), "put_note"))
statuses = [run.step(UserMsg(name="user", content="Save a follow-up note.")) for _ in range(2)]  # the event, then the same event again
report(SCENARIO, {
    "idempotent_replay.c1.effects": counts().get("c1", {}).get("effects", 0), "idempotent_replay.c1.results": tool_results(run.events),
    "refusals": run.refusals, "step_statuses": statuses,
    "side_effects": side_effects(),
    "model.calls_per_turn": calls_per_turn(),
    "model.missing_turns": missing_turns(SCRIPT),
})
