"""ADK's only step bound is ``RunConfig.max_llm_calls`` (500 by default, read here): with the defaults a model that
keeps calling a tool is asked for all five scripted turns and once more, and the run completes (the scenario's bound
is three model turns, a terminal state with a reason).

Documented API only, through the kit (``_kit.py``): ``RunConfig`` left at its defaults
(https://google.github.io/adk-docs/runtime/runconfig/), typed function tools
(https://google.github.io/adk-docs/tools-custom/function-tools/), a scripted ``BaseLlm``
(https://google.github.io/adk-docs/agents/models/).
"""

from _kit import call, deliver, executor_entries, model_counts, scripted_app
from google.adk.agents import RunConfig

from harness.column_side.probes.kit import report, world

SCENARIO = "step_bound"
SHOWS = (
    "model.calls_per_turn",
    "model.missing_turns",
    "side_effects.c4.executor_entries",
    "side_effects.c5.executor_entries",
    "status",
    "step_statuses",
    "constants.step_limit",
)

SCRIPT = [[call(f"c{n}", "get_weather", city="Paris")] for n in range(1, 6)]

status = deliver(scripted_app(SCRIPT, world(), "get_weather"), "Keep checking the weather in Paris.")
entered = executor_entries()
report(SCENARIO, {"constants.step_limit": RunConfig().max_llm_calls, **model_counts(SCRIPT, "calls_per_turn", "missing_turns"),
                  "side_effects.c4.executor_entries": entered["c4"], "side_effects.c5.executor_entries": entered["c5"], "status": status,
                  "step_statuses": [status]})
