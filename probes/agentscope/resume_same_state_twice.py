"""AgentScope keeps no record of what a tool call already did: approving the call again in a restored copy of the
``AgentState`` saved while it asked (a retried webhook) runs the transfer a second time and moves the money twice.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system), through
``_kit.py``: ``Agent`` over an ``AgentState`` saved with ``model_dump_json`` and restored with ``model_validate_json``,
the approval a ``UserConfirmResultEvent``, the results ``reply_stream`` streamed.
"""

from _kit import Driver, Scripted, calls_per_turn, fixture_tools, tool_results
from agentscope.message import UserMsg
from agentscope.state import AgentState

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "resume_same_state_twice"
SHOWS = ("idempotent_replay.c1.effects", "idempotent_replay.c1.results", "model.calls_per_turn", "side_effects.c1")
SCRIPT = [[("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent 25.00 from ACC-1 to ACC-2."]
fixture = world()

run = Driver(Scripted(SCRIPT), fixture_tools(fixture, "transfer_funds"), AgentState(session_id=f"sess-{SCENARIO}"))
run.step(UserMsg(name="user", content="Send 25.00 from ACC-1 to ACC-2."))
paused = run.agent.state.model_dump_json()  # the snapshot of the state that asks
run.step(run.confirmation(run.asking()[0]))  # the human approves
again = Driver(Scripted(SCRIPT), fixture_tools(fixture, "transfer_funds"), AgentState.model_validate_json(paused))
again.step(again.confirmation(again.asking()[0]))  # the same saved state delivered again, approved again
ledger = counts()
report(SCENARIO, {
    "idempotent_replay.c1.effects": ledger["c1"]["effects"], "idempotent_replay.c1.results": tool_results(run.events + again.events),
    "side_effects.c1": {k: ledger["c1"][k] for k in ("tool_entries", "executor_entries", "effects")},
    "model.calls_per_turn": calls_per_turn(),
})
