"""``@function_tool``'s pydantic argument model is lax: arguments the tool's strict schema rejects (``priority`` as
the string ``"2"``, an unknown ``color`` field) are coerced or dropped, and the tool runs with them.

Documented API only, through ``_kit.py``: ``@function_tool`` whose schema and argument parsing
come from the signature, a ``ToolContext`` first (https://openai.github.io/openai-agents-python/tools/), ``Runner.run``,
the scripted ``Model``.
"""

from _kit import run, support_agent, tool_output
from agents import function_tool
from agents.tool_context import ToolContext

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "validation_before_execution"
SHOWS = (
    "schema_failure_side_effects.c1.effects",
    "schema_failure_side_effects.c1.executor_entries",
    "schema_failure_side_effects.c1.tool_entered",
    "schema_failure_side_effects.c2.effects",
    "schema_failure_side_effects.c2.executor_entries",
    "schema_failure_side_effects.c2.tool_entered",
)

fixture = world()
SCRIPT = [
    {"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call back.", "priority": "2"}}]},
    {"tool_calls": [{"id": "c2", "name": "put_note", "arguments": {"key": "followup", "text": "Call back.", "priority": 2, "color": "red"}}]},
    {"tool_calls": [{"id": "c3", "name": "put_note", "arguments": {"key": "followup", "text": "Call back.", "priority": 2}}]},
    {"text": "The note is saved."},
]
received: dict[str, dict] = {}  # what each call's function was given after the SDK parsed the model's arguments


@function_tool
def put_note(ctx: ToolContext, key: str, text: str, priority: int | None = None) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    received[ctx.tool_call_id] = {"key": key, "text": text, "priority": priority}
    return tool_output(fixture, ctx, "put_note", key=key, text=text, priority=priority)


run(support_agent(SCRIPT, put_note), "Save a follow-up note with priority 2.")
print("the tool received:", received)

ledger = counts()
report(SCENARIO, {f"schema_failure_side_effects.{cid}.{key}": value for cid in ("c1", "c2") for key, value in
                  (("tool_entered", ledger[cid]["tool_entries"] > 0), ("executor_entries", ledger[cid]["executor_entries"]),
                   ("effects", ledger[cid]["effects"]))})
