"""``create_agent`` bounds no model turns by default: the agent the docs build sets no limit (a model-call limit
is an extra middleware the agent examples do not add; the graph's only bound is LangGraph's ``recursion_limit``,
which ``create_agent`` sets in its own config), so against the scenario's bound of 3 steps the model is called until the
script runs out, c4 and c5 run, and the run ends ``completed``.

Documented API only: ``create_agent`` with nothing set but model and tools (https://docs.langchain.com/oss/python/langchain/agents);
the ``@tool`` and the scripted chat model, which notes the turn it is asked for, are the kit's (``probes/langchain/_kit.py``).
"""

from _kit import Scripted, agent, call, finished, fixture_tools, flat, ledger, user

from harness.column_side.probes.kit import report, world

SCENARIO = "step_bound"
SHOWS = (
    "model.calls_per_turn.0", "model.calls_per_turn.1", "model.calls_per_turn.2", "model.calls_per_turn.3", "model.calls_per_turn.4", "model.calls_per_turn.5",
    "model.missing_turns", "side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries", "side_effects.c2.effects",
    "side_effects.c2.executor_entries", "side_effects.c2.tool_entries", "side_effects.c3.effects", "side_effects.c3.executor_entries", "side_effects.c3.tool_entries",
    "side_effects.c4.effects", "side_effects.c4.executor_entries", "side_effects.c4.tool_entries", "side_effects.c5.effects", "side_effects.c5.executor_entries",
    "side_effects.c5.tool_entries", "status", "step_statuses.0",
)

model = Scripted(script=[[call(f"c{i}", "get_weather", {"city": "Paris"})] for i in range(1, 6)])
final = agent(model, fixture_tools(world().call, "get_weather")).invoke(user("Keep checking the weather in Paris."))
status = "completed" if finished(final["messages"]) else "crashed"  # it finished by itself

report(SCENARIO, {**flat("side_effects", ledger()), **flat("model.calls_per_turn", model.calls_per_turn()), "model.missing_turns": model.missing_turns(),
                  "status": status, "step_statuses.0": status})
