"""ADK hands a function tool the model's arguments as they came (its argument check, the experimental
``FUNCTION_TOOL_ARG_VALIDATION``, is off by default): ``"2"`` for an ``int`` reaches the tool as the string ``"2"``
and the write runs; an argument the function does not declare (``color``) is dropped and the write runs too. The
contract refuses both calls before the tool is entered.

Documented API only: a typed function tool taking ``tool_context`` wrapped as ``FunctionTool``
(https://google.github.io/adk-docs/tools-custom/function-tools/), with the kit's app and scripted ``BaseLlm``
(``_kit.py``, https://google.github.io/adk-docs/agents/models/).
"""

from _kit import call, deliver, scripted_app, side_effects, text, tool, tool_output
from google.adk.tools import ToolContext

from harness.column_side.probes.kit import report, world

SCENARIO = "validation_before_execution"
SHOWS = (
    "schema_failure_side_effects.c1.effects",
    "schema_failure_side_effects.c1.executor_entries",
    "schema_failure_side_effects.c1.tool_entered",
    "schema_failure_side_effects.c2.effects",
    "schema_failure_side_effects.c2.executor_entries",
    "schema_failure_side_effects.c2.tool_entered",
    "side_effects.c1",
    "side_effects.c2",
    "side_effects.c3",
)

fixture = world()
SCRIPT = [[call("c1", "put_note", key="followup", text="Call back.", priority="2")],
          [call("c2", "put_note", key="followup", text="Call back.", priority=2, color="red")],
          [call("c3", "put_note", key="followup", text="Call back.", priority=2)],
          [text("The note is saved.")]]


async def put_note(key: str, text: str, tool_context: ToolContext, priority: int | None = None) -> dict:
    print(f"{tool_context.function_call_id}: the tool got key={key!r} text={text!r} priority={priority!r}", flush=True)
    return tool_output(fixture, "put_note", tool_context, key=key, text=text, priority=priority)


deliver(scripted_app(SCRIPT, fixture, tool(put_note)), "Save a follow-up note with priority 2.")
found = {}
for call_id in ("c1", "c2"):
    entry = side_effects(call_id)
    found |= {f"schema_failure_side_effects.{call_id}.tool_entered": entry["tool_entries"] > 0,
              f"schema_failure_side_effects.{call_id}.executor_entries": entry["executor_entries"],
              f"schema_failure_side_effects.{call_id}.effects": entry["effects"]}
report(SCENARIO, found | {f"side_effects.{c}": side_effects(c) for c in ("c1", "c2", "c3")})
