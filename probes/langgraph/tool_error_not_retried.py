"""LangGraph's ``ToolNode`` neither retries a tool that fails before its effect nor tells the model: its
default ``handle_tool_errors`` turns only argument errors into messages and re-raises the rest, which ends the run.

Documented API only: ``StateGraph`` with ``MessagesState``, ``ToolNode`` (default ``handle_tool_errors``,
https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode) and ``tools_condition``
(https://langchain-ai.github.io/langgraph/how-tos/tool-calling/),
``GenericFakeChatModel`` replaying the script (the agent node records the turn it asks for: the number of
assistant messages so far, as the harness's scripted model counts turns).
"""

from collections import Counter
from itertools import chain, repeat
from typing import Annotated

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from harness.column_side.probe_kit import Fault, counts, report, world

SCENARIO = "retry_before_effect"
SHOWS = (
    "model.calls_per_turn",
    "model.unused_turns",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "status",
    "step_statuses",
)

fixture = world(Fault("tool.raise_before_effect", call_id="c1"))


@tool
def put_note(key: str, text: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return str(fixture.call("put_note", call_id, {"key": key, "text": text}))


script = [
    AIMessage("", tool_calls=[{"id": "c1", "name": "put_note", "args": {"key": "followup", "text": "Call the customer back on Monday."}}]),
    AIMessage("The note is saved."),
]
model = GenericFakeChatModel(messages=chain(script, repeat(AIMessage("[no scripted turn left]"))))
asked: list[int] = []


def agent(state: MessagesState) -> dict:
    asked.append(sum(isinstance(m, AIMessage) for m in state["messages"]))  # the turn the model is asked for
    return {"messages": [model.invoke(state["messages"])]}


graph = StateGraph(MessagesState)
graph.add_node("agent", agent)
graph.add_node("tools", ToolNode([put_note]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition)
graph.add_edge("tools", "agent")
try:
    graph.compile().invoke({"messages": [("user", "Save a follow-up note.")]})
    status = "completed"
except Exception as error:  # the tool's InjectedToolError, re-raised by ToolNode out of the graph
    print(f"the run ended in {type(error).__name__}: {error}", flush=True)
    status = "error"

ledger = counts()["c1"]
report(SCENARIO, {"status": status, "step_statuses": [status],
                  **{f"side_effects.c1.{k}": ledger[k] for k in ("tool_entries", "executor_entries", "effects")},
                  "model.calls_per_turn": {str(t): n for t, n in sorted(Counter(asked).items())},
                  "model.unused_turns": sorted(set(range(len(script))) - set(asked))})
