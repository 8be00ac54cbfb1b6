"""LangGraph's time travel replays a paused state as new: approving the call again from the checkpoint saved at
the pause runs the transfer a second time (nothing records that the call already ran).

Documented API only: ``interrupt()`` / ``Command(resume={interrupt_id: value})``
(https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject), a run from a checkpoint id
(https://docs.langchain.com/oss/python/langgraph/use-time-travel); the graph with its review node and the scripted model
(the replayed turn gets the same answer) are the kit's (``probes/langgraph/_kit.py``).
"""

from _kit import APPROVE, Scripted, agent_graph, call, fixture_tools, flat, ledger, results, thread, user
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from harness.column_side.probes.kit import report, world

SCENARIO = "resume_same_state_twice"
SHOWS = ("idempotent_replay.c1.effects", "idempotent_replay.c1.equal", "side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries")
PINS = ("1.2.24", "0.6.11")

model = Scripted(script=[[call("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent 25.00 from ACC-1 to ACC-2."])
app = agent_graph(model, fixture_tools(world().call, "transfer_funds"), review=True).compile(checkpointer=InMemorySaver())
config = thread("sess-resume_same_state_twice")


def approve(config: dict) -> list[str]:
    """Approve the pause the config points at, by its interrupt's id; the results c1 holds afterwards."""
    final = app.invoke(Command(resume={app.get_state(config).interrupts[0].id: APPROVE}), config)
    return results(final["messages"], "c1")


app.invoke(user("Send 25.00 from ACC-1 to ACC-2."), config)
paused = app.get_state(config).config  # snapshot: the checkpoint of the pause
answers = approve(config)
answers += approve(paused)  # restore: time travel to the pause, and the same approval again

c1 = ledger()["c1"]
report(SCENARIO, {**flat("side_effects.c1", c1), "idempotent_replay.c1.effects": c1["effects"], "idempotent_replay.c1.equal": len(set(answers)) == 1})
