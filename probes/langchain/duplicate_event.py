"""``create_agent`` has no inbound event id: the same user input delivered again is a new user turn on the thread,
so the model is asked again (a third turn the script does not have) and nothing refuses the duplicate.

Documented API only: ``create_agent`` with a checkpointer and a ``thread_id``
(https://docs.langchain.com/oss/python/langchain/short-term-memory); the agent, the ``@tool`` and the scripted chat
model, which notes the turn it is asked for, are the kit's (``probes/langchain/_kit.py``).
"""

from _kit import Scripted, agent, call, fixture_tools, flat, status, thread, user
from langgraph.checkpoint.memory import InMemorySaver

from harness.column_side.probes.kit import report, world

SCENARIO = "duplicate_event"
SHOWS = ("model.calls_per_turn.0", "model.calls_per_turn.1", "model.calls_per_turn.2", "model.missing_turns", "refusals", "step_statuses.0", "step_statuses.1")

model = Scripted(script=[[call("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], "The note is saved."])
app = agent(model, fixture_tools(world().call, "put_note"), checkpointer=InMemorySaver())
config, statuses, refused = thread("sess-duplicate_event"), [], []
for _ in ("run", "deliver_again"):  # the same event twice: there is no event id to pass
    try:
        app.invoke(user("Save a follow-up note."), config)
    except Exception as error:  # a framework that refuses a duplicate raises; nothing is refused here
        refused.append(type(error).__name__)
    statuses.append(status(app, config))

report(SCENARIO, {**flat("model.calls_per_turn", model.calls_per_turn()), "model.missing_turns": model.missing_turns(), **flat("step_statuses", statuses),
                  "refusals": refused})
