"""LangGraph's ``ToolNode`` validates a call with the tool's pydantic model in lax mode: a priority sent as the
string ``"2"`` is coerced to 2 and an unknown ``color`` argument is dropped, so both invalid calls run the tool.

Documented API only: a ``@tool`` function whose arguments come from its signature
(https://reference.langchain.com/python/langchain-core/tools/base/InjectedToolCallId); the tool-calling graph
(``ToolNode`` and ``tools_condition``) and the scripted model are the kit's (``probes/langgraph/_kit.py``).
"""

from typing import Annotated

from _kit import Scripted, agent_graph, call, flat, ledger, schema_failure, user
from langchain_core.tools import InjectedToolCallId, tool

from harness.column_side.probes.kit import report, world

SCENARIO = "validation_before_execution"
SHOWS = (
    "schema_failure_side_effects.c1.effects", "schema_failure_side_effects.c1.executor_entries", "schema_failure_side_effects.c1.tool_entered",
    "schema_failure_side_effects.c2.effects", "schema_failure_side_effects.c2.executor_entries", "schema_failure_side_effects.c2.tool_entered",
    "side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries", "side_effects.c2.effects", "side_effects.c2.executor_entries",
    "side_effects.c2.tool_entries", "side_effects.c3.effects", "side_effects.c3.executor_entries", "side_effects.c3.tool_entries",
)
PINS = ("1.2.24", "0.6.11")

fixture = world()


@tool
def put_note(key: str, text: str, call_id: Annotated[str, InjectedToolCallId], priority: int | None = None) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    args = {"key": key, "text": text} | ({"priority": priority} if priority is not None else {})
    return str(fixture.call("put_note", call_id, args))  # what reached the tool, after LangChain's parsing


NOTE = {"key": "followup", "text": "Call back."}
model = Scripted(script=[
    [call("c1", "put_note", {**NOTE, "priority": "2"})],  # a string where the schema wants an integer
    [call("c2", "put_note", {**NOTE, "priority": 2, "color": "red"})],  # an argument the schema does not have
    [call("c3", "put_note", {**NOTE, "priority": 2})],
    "The note is saved.",
])
agent_graph(model, [put_note]).compile().invoke(user("Save a follow-up note with priority 2."))

found = ledger()  # c1 and c2 break the strict schema
report(SCENARIO, {**flat("side_effects", {cid: found[cid] for cid in ("c1", "c2", "c3")}), **schema_failure("c1", found["c1"]), **schema_failure("c2", found["c2"])})
