"""Agent Framework validates a tool's arguments with the pydantic model it builds from the function's signature, in
pydantic's lax mode, and ignores what the signature does not declare: ``"2"`` for an ``int`` reaches the tool as ``2``
and the write runs; an argument the function does not declare (``color``) is dropped and the write runs too. The
contract refuses both calls before the tool is entered (the registry's strict schema).

Documented API only, through the kit (``_kit.py``): a typed ``async`` function made a tool with ``tool(...)``, its
schema and validation derived from the signature (https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools;
``FunctionTool._prepare_arguments``, ``agent_framework/_tools.py``: "Validate and normalize arguments immediately
before function execution"), with the kit's agent, scripted chat client and pass-through function middleware (there
only to hand the tool its call id for the ledger).
"""

from _kit import call, deliver, fixture_tool, side_effects, support_agent, text, tool_output
from agent_framework import FunctionInvocationContext

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


async def put_note(ctx: FunctionInvocationContext, *, key: str, text: str, priority: int | None = None) -> dict:
    print(f"{ctx.metadata['call_id']}: the tool got key={key!r} text={text!r} priority={priority!r}", flush=True)
    return tool_output(fixture, "put_note", ctx, key=key, text=text, priority=priority)


deliver(support_agent(SCRIPT, fixture, fixture_tool(put_note)), "Save a follow-up note with priority 2.")
found = {}
for call_id in ("c1", "c2"):
    entry = side_effects(call_id)
    found |= {f"schema_failure_side_effects.{call_id}.tool_entered": entry["tool_entries"] > 0,
              f"schema_failure_side_effects.{call_id}.executor_entries": entry["executor_entries"],
              f"schema_failure_side_effects.{call_id}.effects": entry["effects"]}
report(SCENARIO, found | {f"side_effects.{c}": side_effects(c) for c in ("c1", "c2", "c3")})
