"""LangGraph's ``ToolNode`` never retries a tool that fails before its effect; what the model hears of the failure
depends on the pin. At 1.2.24 the default ``handle_tool_errors`` turns only argument errors into messages and re-raises
the rest, which ends the run before the model's next turn; at 0.6.11 the default (``True``) catches every exception and
hands the model an error ``ToolMessage`` ("Error: ... Please fix your mistakes."), and the run completes on its next turn.

Documented API only: ``ToolNode`` with its default ``handle_tool_errors``
(https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode); the tool-calling graph and the scripted
model, which notes the turn it is asked for, are the kit's (``probes/langgraph/_kit.py``).
"""

from _kit import Scripted, agent_graph, call, fixture_tools, flat, ledger, step, tool_error, user

from harness.column_side.probes.kit import Fault, report, world

SCENARIO = "retry_before_effect"
SHOWS = ("model.calls_per_turn", "model.unused_turns", "side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries",
         "status", "step_statuses", "constants.tool_error")
PINS = ("1.2.24", "0.6.11")

tools = fixture_tools(world(Fault("tool.raise_before_effect", call_id="c1")).call, "put_note")
model = Scripted(script=[[call("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], "The note is saved."])
status = step(agent_graph(model, tools).compile(), user("Save a follow-up note."), errors=(Exception,))  # 1.2.24: the tool's InjectedToolError, re-raised by ToolNode

report(SCENARIO, {"status": status, "step_statuses": [status], **flat("side_effects", {"c1": ledger()["c1"]}),
                  "model.calls_per_turn": model.calls_per_turn(), "model.unused_turns": model.unused_turns(),
                  "constants.tool_error": tool_error()})  # the default itself, on a one-node graph with a tool that raises
