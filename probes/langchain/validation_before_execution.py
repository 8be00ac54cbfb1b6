"""The ``@tool`` argument model of a LangChain tool is lax: ``create_agent`` runs a call whose priority is the string
``"2"`` (coerced to 2) and one with an unknown ``color`` field (dropped), so both invalid calls write a note.

Documented API only: ``@tool`` on a typed function with ``InjectedToolCallId``
(https://docs.langchain.com/oss/python/langchain/tools); ``create_agent`` and the scripted chat model are the kit's
(``probes/langchain/_kit.py``).
"""

from typing import Annotated

from _kit import Scripted, agent, call, flat, ledger, schema_failure, user
from langchain_core.tools import InjectedToolCallId, tool

from harness.column_side.probes.kit import report, world

SCENARIO = "validation_before_execution"
SHOWS = (
    "schema_failure_side_effects.c1.effects", "schema_failure_side_effects.c1.executor_entries", "schema_failure_side_effects.c1.tool_entered",
    "schema_failure_side_effects.c2.effects", "schema_failure_side_effects.c2.executor_entries", "schema_failure_side_effects.c2.tool_entered",
    "side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries", "side_effects.c2.effects", "side_effects.c2.executor_entries",
    "side_effects.c2.tool_entries", "side_effects.c3.effects", "side_effects.c3.executor_entries", "side_effects.c3.tool_entries",
)

fixture = world()


@tool
def put_note(key: str, text: str, call_id: Annotated[str, InjectedToolCallId], priority: int | None = None) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    args = {"key": key, "text": text} | ({} if priority is None else {"priority": priority})
    return str(fixture.call("put_note", call_id, args))


NOTE = {"key": "followup", "text": "Call back."}
model = Scripted(script=[
    [call("c1", "put_note", {**NOTE, "priority": "2"})],  # wrong type
    [call("c2", "put_note", {**NOTE, "priority": 2, "color": "red"})],  # extra
    [call("c3", "put_note", {**NOTE, "priority": 2})],  # valid
    "The note is saved.",
])
agent(model, [put_note]).invoke(user("Save a follow-up note with priority 2."))

found = ledger()  # c1 and c2: the two calls whose arguments break put_note's strict schema
report(SCENARIO, {**flat("side_effects", found), **schema_failure("c1", found["c1"]), **schema_failure("c2", found["c2"])})
