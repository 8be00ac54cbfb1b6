"""LangGraph keeps no record of executed tool calls: when the model repeats a call id in a later turn,
``ToolNode`` runs the tool again and the note is written twice.

Documented API only: ``StateGraph`` with ``MessagesState``, ``ToolNode`` and ``tools_condition``
(https://langchain-ai.github.io/langgraph/how-tos/tool-calling/), a chat model that replays a script
(``GenericFakeChatModel`` from ``langchain_core.language_models.fake_chat_models``).
"""

from typing import Annotated

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "duplicate_call_id"
SHOWS = (
    "idempotent_replay.c1.effects",
    "idempotent_replay.c1.equal",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
)

fixture = world()


@tool
def put_note(key: str, text: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return str(fixture.call("put_note", call_id, {"key": key, "text": text}))


same_call = {"id": "c1", "name": "put_note", "args": {"key": "followup", "text": "Call the customer back on Monday."}}
script = iter([AIMessage("", tool_calls=[same_call]), AIMessage("", tool_calls=[same_call]), AIMessage("The note is saved.")])
model = GenericFakeChatModel(messages=script)

graph = StateGraph(MessagesState)
graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
graph.add_node("tools", ToolNode([put_note]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition)
graph.add_edge("tools", "agent")
final = graph.compile().invoke({"messages": [("user", "Save a follow-up note.")]})

results = [m.content for m in final["messages"] if isinstance(m, ToolMessage) and m.tool_call_id == "c1"]
ledger = counts()["c1"]
report(SCENARIO, {"idempotent_replay.c1.effects": ledger["effects"], "idempotent_replay.c1.equal": len(set(results)) == 1,
                  **{f"side_effects.c1.{k}": ledger[k] for k in ("tool_entries", "executor_entries", "effects")}})
