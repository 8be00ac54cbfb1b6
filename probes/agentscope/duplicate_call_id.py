"""AgentScope drops a call id the model sends again: the note asks for confirmation (default mode) and, confirmed as the
driver answers a question the contract would not have asked, is written; the next turn repeats the call under the same
id, and AgentScope neither runs it nor asks about it nor gives it a result (the saved call stays ``pending``) and asks
the model for its next turn, so the model gets one result where the engine replays the stored one.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system), through
``_kit.py``: ``Agent`` over its default ``AgentState``, a ``UserConfirmResultEvent`` confirming the asking
``ToolCallBlock``, the results ``reply_stream`` streamed and the calls the state keeps.
"""

from _kit import Driver, Scripted, calls_per_turn, fixture_tools, side_effects, tool_results
from agentscope.message import UserMsg

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "duplicate_call_id"
SHOWS = (
    "idempotent_replay.c1.effects",
    "idempotent_replay.c1.results",
    "model.calls_per_turn",
    "side_effects",
    "status",
)
NOTE = ("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})
SCRIPT = [[NOTE], [NOTE], "The note is saved."]

run = Driver(Scripted(SCRIPT), fixture_tools(world(), "put_note"))
status = run.step(UserMsg(name="user", content="Save a follow-up note."))
print("AgentScope's saved calls:", [(b.id, str(b.state)) for m in run.agent.state.context for b in m.get_content_blocks("tool_call")])
report(SCENARIO, {
    "status": status,
    "side_effects": side_effects(),
    "idempotent_replay.c1.effects": counts().get("c1", {}).get("effects", 0), "idempotent_replay.c1.results": tool_results(run.events),
    "model.calls_per_turn": calls_per_turn(),
})
