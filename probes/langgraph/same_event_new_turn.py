"""LangGraph keeps no record of delivered inputs: the same user message delivered again on the thread is
appended as a new user turn and the model is asked again (a turn the script does not have).

Documented API only: ``StateGraph`` with ``MessagesState``, ``ToolNode`` and ``tools_condition``
(https://langchain-ai.github.io/langgraph/how-tos/tool-calling/), a checkpointer and a ``thread_id``
(https://docs.langchain.com/oss/python/langgraph/persistence),
``GenericFakeChatModel`` replaying the script (the agent node records the turn it asks for: the number of
assistant messages so far, as the harness's scripted model counts turns).
"""

from collections import Counter
from itertools import chain, repeat
from typing import Annotated

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "duplicate_event"
SHOWS = ("idempotent_replay.c1.effects", "model.calls_per_turn", "model.missing_turns", "step_statuses")

fixture = world()


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
app, config = graph.compile(checkpointer=InMemorySaver()), {"configurable": {"thread_id": "sess-duplicate_event"}}

statuses = []
for _ in range(2):  # run, then deliver_again: the same event, and LangGraph runs it like any other
    final = app.invoke({"messages": [("user", "Save a follow-up note.")]}, config)["messages"][-1]
    statuses.append("completed" if not app.get_state(config).next and not final.tool_calls else "not finished")

report(SCENARIO, {"model.calls_per_turn": {str(t): n for t, n in sorted(Counter(asked).items())},
                  "model.missing_turns": sorted({t for t in asked if t >= len(script)}),
                  "step_statuses": statuses,
                  "idempotent_replay.c1.effects": counts()["c1"]["effects"]})
