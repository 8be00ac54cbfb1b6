"""``create_agent`` keeps no record of executed tool call ids: when the model repeats call id c1 in a later turn,
the tool node runs it again and the note is written twice.

Documented API only, through the kit (``probes/langchain/_kit.py``): ``create_agent``
(https://docs.langchain.com/oss/python/langchain/agents), the ``@tool`` (its result as compact JSON), the scripted chat model.
"""

from _kit import Scripted, agent, call, fixture_tools, flat, ledger, results, user

from harness.column_side.probes.kit import report, world

SCENARIO = "duplicate_call_id"
SHOWS = ("idempotent_replay.c1.effects", "idempotent_replay.c1.results", "side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries")

same_call = call("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})
model = Scripted(script=[[same_call], [same_call], "The note is saved."])
final = agent(model, fixture_tools(world().call, "put_note")).invoke(user("Save a follow-up note."))

c1 = ledger()["c1"]
report(SCENARIO, {**flat("side_effects.c1", c1), "idempotent_replay.c1.effects": c1["effects"], "idempotent_replay.c1.results": results(final["messages"], "c1")})
