"""LangGraph's ``ToolNode`` validates a call with the tool's pydantic model in lax mode: a priority sent as the
string ``"2"`` is coerced to 2 and an unknown ``color`` argument is dropped, so both invalid calls run the tool.

Documented API only: ``StateGraph`` with ``MessagesState``, ``ToolNode`` and ``tools_condition``
(https://langchain-ai.github.io/langgraph/how-tos/tool-calling/), a ``@tool`` function whose arguments come
from its signature (https://reference.langchain.com/python/langchain-core/tools/base/InjectedToolCallId),
and ``GenericFakeChatModel`` replaying the script.
"""

from typing import Annotated

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

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


@tool
def put_note(key: str, text: str, call_id: Annotated[str, InjectedToolCallId], priority: int | None = None) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    args = {"key": key, "text": text} | ({"priority": priority} if priority is not None else {})
    return str(fixture.call("put_note", call_id, args))  # what reached the tool, after LangChain's parsing


def note_call(call_id: str, args: dict) -> AIMessage:
    return AIMessage("", tool_calls=[{"id": call_id, "name": "put_note", "args": {"key": "followup", "text": "Call back.", **args}}])


script = iter([
    note_call("c1", {"priority": "2"}),  # a string where the schema wants an integer
    note_call("c2", {"priority": 2, "color": "red"}),  # an argument the schema does not have
    note_call("c3", {"priority": 2}),
    AIMessage("The note is saved."),
])
model = GenericFakeChatModel(messages=script)

graph = StateGraph(MessagesState)
graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
graph.add_node("tools", ToolNode([put_note]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition)
graph.add_edge("tools", "agent")
graph.compile().invoke({"messages": [("user", "Save a follow-up note with priority 2.")]})

ledger = counts()
measured = {f"side_effects.{cid}.{k}": ledger[cid][k] for cid in ("c1", "c2", "c3") for k in ("tool_entries", "executor_entries", "effects")}
for cid in ("c1", "c2"):  # the calls that break the strict schema
    measured |= {f"schema_failure_side_effects.{cid}.tool_entered": ledger[cid]["tool_entries"] > 0,
                 f"schema_failure_side_effects.{cid}.executor_entries": ledger[cid]["executor_entries"],
                 f"schema_failure_side_effects.{cid}.effects": ledger[cid]["effects"]}
report(SCENARIO, measured)
