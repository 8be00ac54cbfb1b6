"""ADK hands a function tool the model's arguments unchecked (its argument check, the experimental
``FUNCTION_TOOL_ARG_VALIDATION``, is off by default): ``{"city": 5}`` reaches ``get_weather(city: str)``, whose body
fails on the number with a ``TypeError``, and with no ``on_tool_error_callback`` ADK re-raises it out of the run:
the run ends in the exception and the model never sees the error to correct its call. The contract answers the
call as an error result before the tool runs, and the model's corrected call completes the run.

Documented API only, through the kit (``_kit.py``): a typed function tool wrapped as ``FunctionTool``
(https://google.github.io/adk-docs/tools-custom/function-tools/), no tool callback set
(https://google.github.io/adk-docs/callbacks/types-of-callbacks/#tool-execution-callbacks), a scripted ``BaseLlm``
(https://google.github.io/adk-docs/agents/models/).
"""

from _kit import call, deliver, model_counts, scripted_app, side_effects, text

from harness.column_side.probes.kit import report, world

SCENARIO = "invalid_args_corrected"
SHOWS = (
    "model.unused_turns",
    "schema_failure_side_effects.c1.effects",
    "schema_failure_side_effects.c1.executor_entries",
    "schema_failure_side_effects.c1.tool_entered",
    "side_effects.c1",
    "status",
    "step_statuses",
)

SCRIPT = [[call("c1", "get_weather", city=5)], [call("c2", "get_weather", city="Paris")], [text("It is sunny in Paris.")]]

status = deliver(scripted_app(SCRIPT, world(), "get_weather"), "What is the weather in Paris?", errors=(TypeError,))
c1 = side_effects("c1")
report(SCENARIO, {**model_counts(SCRIPT, "unused_turns"), "schema_failure_side_effects.c1.tool_entered": c1["tool_entries"] > 0,
                  "schema_failure_side_effects.c1.executor_entries": c1["executor_entries"], "schema_failure_side_effects.c1.effects": c1["effects"],
                  "side_effects.c1": c1, "status": status, "step_statuses": [status]})
