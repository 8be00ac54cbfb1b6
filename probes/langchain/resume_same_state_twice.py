"""Continuing from a saved checkpoint (LangGraph time travel) replays the approved transfer: ``create_agent`` keeps
no record of executed tool call ids, so approving c1 again from the paused checkpoint moves the money twice.

Documented API only: ``create_agent`` with ``HumanInTheLoopMiddleware`` and ``Command(resume={"decisions": [...]})``
(https://docs.langchain.com/oss/python/langchain/human-in-the-loop), ``get_state`` and a run from a prior
``checkpoint_id`` (https://docs.langchain.com/oss/python/langgraph/use-time-travel); the agent, the ``@tool`` and the
scripted chat model are the kit's (``probes/langchain/_kit.py``).
"""

from _kit import APPROVE, Scripted, agent, call, decide, fixture_tools, flat, ledger, thread, user
from langgraph.checkpoint.memory import InMemorySaver

from harness.column_side.probes.kit import report, world

SCENARIO = "resume_same_state_twice"
SHOWS = ("idempotent_replay.c1.effects", "side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries")

model = Scripted(script=[[call("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent 25.00 from ACC-1 to ACC-2."])
app = agent(model, fixture_tools(world().call, "transfer_funds"), reviewed=("transfer_funds",), checkpointer=InMemorySaver())
config = thread("sess-resume_same_state_twice")
app.invoke(user("Send 25.00 from ACC-1 to ACC-2."), config)
paused = app.get_state(config).config  # snapshot: the paused checkpoint's config (with its checkpoint_id)
app.invoke(decide(APPROVE), config)
app.invoke(decide(APPROVE), paused)  # restore the snapshot, approve again

c1 = ledger()["c1"]
report(SCENARIO, {**flat("side_effects.c1", c1), "idempotent_replay.c1.effects": c1["effects"]})
