"""LangGraph keeps no record of delivered inputs: the same user message delivered again on the thread is
appended as a new user turn and the model is asked again (a turn the script does not have).

Documented API only: a checkpointer and a ``thread_id`` (https://docs.langchain.com/oss/python/langgraph/persistence);
the tool-calling graph and the scripted model, which notes the turn it is asked for (the number of assistant messages
so far, as the harness's scripted model counts turns), are the kit's (``probes/langgraph/_kit.py``).
"""

from _kit import Scripted, agent_graph, call, fixture_tools, step, thread, user
from langgraph.checkpoint.memory import InMemorySaver

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "duplicate_event"
SHOWS = ("idempotent_replay.c1.effects", "model.calls_per_turn", "model.missing_turns", "step_statuses")
PINS = ("1.2.24", "0.6.11")

model = Scripted(script=[[call("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], "The note is saved."])
app = agent_graph(model, fixture_tools(world().call, "put_note")).compile(checkpointer=InMemorySaver())
config = thread("sess-duplicate_event")

# run, then deliver_again: the same event, and LangGraph runs it like any other
statuses = [step(app, user("Save a follow-up note."), config) for _ in range(2)]

report(SCENARIO, {"model.calls_per_turn": model.calls_per_turn(), "model.missing_turns": model.missing_turns(), "step_statuses": statuses,
                  "idempotent_replay.c1.effects": counts()["c1"]["effects"]})
