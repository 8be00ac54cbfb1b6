"""The SDK keeps no record of executed tool call ids: approving a restored copy of the paused ``RunState`` (saved with
``to_json()`` before the first approval) runs the already-approved-and-executed transfer again.

Documented API only, through ``_kit.py``: ``@function_tool(needs_approval=True)``,
``result.to_state()``, ``state.to_json()``, ``RunState.from_json(agent, data)``, ``state.approve(item)``,
``Runner.run(agent, state, session=...)`` (https://openai.github.io/openai-agents-python/human_in_the_loop/),
``SQLiteSession`` (https://openai.github.io/openai-agents-python/sessions/).
"""

from _kit import fixture_tools, item, outputs, run, save_paused, saved_state, session, side_effects, support_agent

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "resume_same_state_twice"
SHOWS = (
    "idempotent_replay.c1.effects",
    "idempotent_replay.c1.results",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
)

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}}]},
          {"text": "Sent 25.00 from ACC-1 to ACC-2."}]

agent = support_agent(SCRIPT, fixture_tools(world())["transfer_funds"])
conversation = session("sess-resume_same_state_twice")
save_paused(run(agent, "Send 25.00 from ACC-1 to ACC-2.", session=conversation))  # the driver's snapshot of the paused run
answers = []
for _ in ("approve", "restore, then approve"):
    state = saved_state(agent)
    state.approve(item(state, "c1"))
    answers += outputs(run(agent, state, session=conversation).new_items)
report(SCENARIO, {**side_effects("c1"), "idempotent_replay.c1.effects": counts()["c1"]["effects"], "idempotent_replay.c1.results": answers})
