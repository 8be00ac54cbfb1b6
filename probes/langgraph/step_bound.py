"""LangGraph bounds a run by super-steps (``recursion_limit``; the pinned default is in the evidence's ``constants``: 10007 at
1.2.24, 25 at 0.6.11), not by model turns: a model that keeps calling tools gets every turn of the script and one more,
well past the scenario's bound of 3, at either pin (the script's 11 super-steps stay under both limits). The default
bound itself is counted too: the super-steps a graph that never ends gets before ``GraphRecursionError``.

Documented API only: the default recursion limit (https://docs.langchain.com/oss/python/langgraph/errors/GRAPH_RECURSION_LIMIT);
the tool-calling graph and the scripted model, which notes the turn it is asked for (the number of assistant messages
so far, as the harness's scripted model counts turns), are the kit's (``probes/langgraph/_kit.py``).
"""

from _kit import Scripted, agent_graph, call, finished, fixture_tools, ledger, recursion_limit, user

from harness.column_side.probes.kit import report, world

SCENARIO = "step_bound"
SHOWS = ("model.calls_per_turn", "model.missing_turns", "side_effects.c1.executor_entries", "side_effects.c2.executor_entries", "side_effects.c3.executor_entries",
         "side_effects.c4.executor_entries", "side_effects.c5.executor_entries", "status", "constants.step_limit")
PINS = ("1.2.24", "0.6.11")

model = Scripted(script=[[call(f"c{n}", "get_weather", {"city": "Paris"})] for n in range(1, 6)])
final = agent_graph(model, fixture_tools(world().call, "get_weather")).compile().invoke(user("Keep checking the weather in Paris."))  # no GraphRecursionError

report(SCENARIO, {"model.calls_per_turn": model.calls_per_turn(), "model.missing_turns": model.missing_turns(),
                  **{f"side_effects.{cid}.executor_entries": c["executor_entries"] for cid, c in ledger().items()},
                  "status": "completed" if finished(final["messages"]) else "not finished",
                  "constants.step_limit": recursion_limit()})  # the default bound itself, counted on a graph that never ends
