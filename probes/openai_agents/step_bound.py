"""Nothing in the SDK knows the scenario's step bound (3 model turns): ``Runner.run``'s default ``max_turns`` is 10, so
the model is called until its script runs out (calls c4 and c5 ran) and the run completes instead of stopping.

Documented API only, through ``_kit.py``: ``Runner.run`` with its default ``max_turns``
(https://openai.github.io/openai-agents-python/running_agents/), the ``@function_tool`` fixture tools, the scripted ``Model``.
"""

from _kit import calls_per_turn, fixture_tools, run, support_agent
from agents import MaxTurnsExceeded

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "step_bound"
SHOWS = ("model.calls_per_turn", "side_effects.c4.executor_entries", "side_effects.c5.executor_entries", "status")

SCRIPT = [{"tool_calls": [{"id": f"c{n}", "name": "get_weather", "arguments": {"city": "Paris"}}]} for n in range(1, 6)]

try:
    run(support_agent(SCRIPT, fixture_tools(world())["get_weather"]), "Keep checking the weather in Paris.")  # max_turns left at its default
    status = "completed"
except MaxTurnsExceeded:
    status = "stopped_max_steps"
report(SCENARIO, {"model.calls_per_turn": calls_per_turn(), "status": status,
                  **{f"side_effects.{c}.executor_entries": counts()[c]["executor_entries"] for c in ("c4", "c5")}})
