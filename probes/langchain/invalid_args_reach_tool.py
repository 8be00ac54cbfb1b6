"""The ``@tool`` argument model of a LangChain tool is lax: ``create_agent`` runs a call whose priority is the string
``"2"`` (coerced to 2) and one with an unknown ``color`` field (dropped), so both invalid calls write a note.

Documented API only: ``create_agent`` (https://docs.langchain.com/oss/python/langchain/agents), ``@tool`` on a typed
function with ``InjectedToolCallId`` (https://docs.langchain.com/oss/python/langchain/tools) and a scripted chat
model whose ``bind_tools`` returns itself (https://docs.langchain.com/oss/python/langchain/test/unit-testing).
"""

from typing import Annotated

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "validation_before_execution"
SHOWS = (
    "schema_failure_side_effects.c1.effects",
    "schema_failure_side_effects.c1.executor_entries",
    "schema_failure_side_effects.c1.tool_entered",
    "schema_failure_side_effects.c2.effects",
    "schema_failure_side_effects.c2.executor_entries",
    "schema_failure_side_effects.c2.tool_entered",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "side_effects.c2.effects",
    "side_effects.c2.executor_entries",
    "side_effects.c2.tool_entries",
    "side_effects.c3.effects",
    "side_effects.c3.executor_entries",
    "side_effects.c3.tool_entries",
)

fixture = world()
NOTE = {"key": "followup", "text": "Call back."}
SCRIPT = [
    AIMessage("", tool_calls=[{"id": "c1", "name": "put_note", "args": {**NOTE, "priority": "2"}}]),  # wrong type
    AIMessage("", tool_calls=[{"id": "c2", "name": "put_note", "args": {**NOTE, "priority": 2, "color": "red"}}]),  # extra
    AIMessage("", tool_calls=[{"id": "c3", "name": "put_note", "args": {**NOTE, "priority": 2}}]),  # valid
    AIMessage("The note is saved."),
]


class Scripted(BaseChatModel):
    """The script's turn numbered by the AI messages already in the conversation."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        return ChatResult(generations=[ChatGeneration(message=SCRIPT[sum(isinstance(m, AIMessage) for m in messages)])])


@tool
def put_note(key: str, text: str, call_id: Annotated[str, InjectedToolCallId], priority: int | None = None) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    args = {"key": key, "text": text} | ({} if priority is None else {"priority": priority})
    return str(fixture.call("put_note", call_id, args))


create_agent(Scripted(), tools=[put_note]).invoke({"messages": [{"role": "user", "content": "Save a follow-up note with priority 2."}]})

ledger = counts()
found = {f"side_effects.{c}.{k}": ledger[c][k] for c in ledger for k in ("tool_entries", "executor_entries", "effects")}
for c in ("c1", "c2"):  # the two calls whose arguments break put_note's strict schema
    found |= {f"schema_failure_side_effects.{c}.tool_entered": ledger[c]["tool_entries"] > 0,
              f"schema_failure_side_effects.{c}.executor_entries": ledger[c]["executor_entries"],
              f"schema_failure_side_effects.{c}.effects": ledger[c]["effects"]}
report(SCENARIO, found)
