"""A tool that raises before its effect is not retried: the default ``failure_error_function`` turns the exception
into an error message for the model, which goes on to its next turn (the engine retries the call, which succeeds).

Documented API only, through ``_kit.py``: ``@function_tool`` with its default
``failure_error_function`` (https://openai.github.io/openai-agents-python/tools/#handling-errors-in-function-tools),
``Runner.run``, the scripted ``Model``.
"""

from _kit import fixture_tools, outputs, run, side_effects, support_agent

from harness.column_side.probes.kit import Fault, report, world

SCENARIO = "retry_before_effect"
SHOWS = ("side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries")

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call the customer back on Monday."}}]},
          {"text": "The note is saved."}]

tools = fixture_tools(world(Fault("tool.raise_before_effect", call_id="c1")))
result = run(support_agent(SCRIPT, tools["put_note"]), "Save a follow-up note.")
print("the model was told:", outputs(result.new_items))
report(SCENARIO, side_effects("c1"))
