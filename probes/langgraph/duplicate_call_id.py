"""LangGraph keeps no record of executed tool calls: when the model repeats a call id in a later turn,
``ToolNode`` runs the tool again and the note is written twice.

Documented API only, through the kit (``probes/langgraph/_kit.py``): the tool-calling graph (``StateGraph`` with
``MessagesState``, ``ToolNode`` and ``tools_condition``: https://langchain-ai.github.io/langgraph/how-tos/tool-calling/),
the fixture tool as a ``@tool`` function, the scripted chat model.
"""

from _kit import Scripted, agent_graph, call, fixture_tools, flat, ledger, results, user

from harness.column_side.probes.kit import report, world

SCENARIO = "duplicate_call_id"
SHOWS = ("idempotent_replay.c1.effects", "idempotent_replay.c1.equal", "side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries")
PINS = ("1.2.24", "0.6.11")

same_call = call("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})
model = Scripted(script=[[same_call], [same_call], "The note is saved."])
final = agent_graph(model, fixture_tools(world().call, "put_note")).compile().invoke(user("Save a follow-up note."))

c1, answers = ledger()["c1"], results(final["messages"], "c1")
report(SCENARIO, {"idempotent_replay.c1.effects": c1["effects"], "idempotent_replay.c1.equal": len(set(answers)) == 1, **flat("side_effects.c1", c1)})
