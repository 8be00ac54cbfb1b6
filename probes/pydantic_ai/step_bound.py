"""Pydantic AI's only step bound is ``UsageLimits.request_limit`` (its pinned default is in the evidence's ``constants``): with the
defaults a model that keeps calling a tool is asked for all five scripted turns and once more, and the run
completes (the scenario's bound is three model turns, a terminal state with a reason).

Documented API only, through the kit (``_kit.py``): ``UsageLimits`` left at its defaults
(https://pydantic.dev/docs/ai/core-concepts/agent/#usage-limits), typed function tools, a scripted ``FunctionModel``.
"""

from _kit import executor_entries, model_counts, status, support_agent
from pydantic_ai.messages import ToolCallPart

from harness.column_side.probes.kit import report, world

SCENARIO = "step_bound"
SHOWS = (
    "model.calls_per_turn",
    "model.missing_turns",
    "side_effects.c1.executor_entries",
    "side_effects.c2.executor_entries",
    "side_effects.c3.executor_entries",
    "side_effects.c4.executor_entries",
    "side_effects.c5.executor_entries",
    "status",
)

SCRIPT = [[ToolCallPart("get_weather", {"city": "Paris"}, tool_call_id=f"c{n}")] for n in range(1, 6)]

result = support_agent(SCRIPT, world(), "get_weather").run_sync("Keep checking the weather in Paris.")
report(SCENARIO, {f"side_effects.{call_id}.executor_entries": n for call_id, n in executor_entries().items()}
       | model_counts(SCRIPT, "calls_per_turn", "missing_turns") | {"status": status(result.output)})
