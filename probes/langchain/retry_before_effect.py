"""A tool that fails before its effect is not retried: LangGraph's ``ToolNode`` (which ``create_agent`` runs every
call through) turns only argument errors into messages by default and re-raises any other exception, so the run
ends in that error, the note is never written and the model is not asked again.

Documented API only: ``ToolNode``'s default ``handle_tool_errors`` (https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode);
``create_agent``, the ``@tool`` and the scripted chat model, which notes the turn it is asked for, are the kit's
(``probes/langchain/_kit.py``).
"""

from _kit import Scripted, agent, call, fixture_tools, flat, ledger, step, user

from harness.column_side.probes.kit import Fault, report, world

SCENARIO = "retry_before_effect"
SHOWS = ("model.calls_per_turn.0", "model.unused_turns", "side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries",
         "status", "step_statuses.0")

tools = fixture_tools(world(Fault(point="tool.raise_before_effect", call_id="c1")).call, "put_note")  # the scenario's fault: fails once, before the effect
model = Scripted(script=[[call("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], "The note is saved."])
status = step(agent(model, tools), user("Save a follow-up note."), errors=(Exception,))  # the injected failure comes out of invoke: the run is over

report(SCENARIO, {**flat("side_effects.c1", ledger()["c1"]), **flat("model.calls_per_turn", model.calls_per_turn()), "model.unused_turns": model.unused_turns(),
                  "status": status, "step_statuses.0": status})
