"""Pydantic AI validates tool arguments in pydantic's lax mode: ``"2"`` for an ``int`` is coerced to ``2`` and the
write runs (the contract refuses it before the tool is entered); only the unknown field is refused: the model gets
pydantic's ``extra_forbidden`` error back and the tool is not entered.

Documented API only: an ``Agent`` with a typed function tool whose arguments Pydantic AI validates before it runs
(https://pydantic.dev/docs/ai/tools-toolsets/tools/, https://pydantic.dev/docs/ai/tools-toolsets/tools-advanced/#tool-retries)
and the kit's scripted ``FunctionModel`` (``_kit.py``).
"""

from _kit import support_agent, tool_output
from pydantic_ai import RunContext, Tool
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "validation_before_execution"
SHOWS = (
    "schema_failure_side_effects.c1.effects",
    "schema_failure_side_effects.c1.executor_entries",
    "schema_failure_side_effects.c1.tool_entered",
    "schema_failure_side_effects.c2.effects",
    "schema_failure_side_effects.c2.executor_entries",
    "schema_failure_side_effects.c2.tool_entered",
    "side_effects.c1.effects",
    "side_effects.c3.effects",
)

fixture = world()
SCRIPT = [
    [ToolCallPart("put_note", {"key": "followup", "text": "Call back.", "priority": "2"}, tool_call_id="c1")],
    [ToolCallPart("put_note", {"key": "followup", "text": "Call back.", "priority": 2, "color": "red"}, tool_call_id="c2")],
    [ToolCallPart("put_note", {"key": "followup", "text": "Call back.", "priority": 2}, tool_call_id="c3")],
    [TextPart("The note is saved.")],
]


async def put_note(ctx: RunContext[None], key: str, text: str, priority: int | None = None) -> str:
    """Store a note under a key."""
    return tool_output(fixture, ctx, "put_note", key=key, text=text, **({"priority": priority} if priority is not None else {}))


support_agent(SCRIPT, fixture, Tool(put_note)).run_sync("Save a follow-up note with priority 2.")

ledger = counts()
found = {}
for call_id in ("c1", "c2"):
    entry = ledger.get(call_id, {"tool_entries": 0, "executor_entries": 0, "effects": 0})
    found |= {f"schema_failure_side_effects.{call_id}.tool_entered": entry["tool_entries"] > 0,
              f"schema_failure_side_effects.{call_id}.executor_entries": entry["executor_entries"],
              f"schema_failure_side_effects.{call_id}.effects": entry["effects"]}
found |= {f"side_effects.{c}.effects": ledger[c]["effects"] for c in ("c1", "c3")}
report(SCENARIO, found)
