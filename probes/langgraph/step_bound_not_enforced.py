"""LangGraph bounds a run by super-steps (``recursion_limit``; the pinned default is in the evidence's ``constants``), not by model turns: a model
that keeps calling tools gets every turn of the script and one more, well past the scenario's bound of 3.

Documented API only: ``StateGraph`` with ``MessagesState``, ``ToolNode`` and ``tools_condition``
(https://langchain-ai.github.io/langgraph/how-tos/tool-calling/), the default recursion limit
(https://docs.langchain.com/oss/python/langgraph/errors/GRAPH_RECURSION_LIMIT),
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

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "step_bound"
SHOWS = (
    "model.calls_per_turn",
    "model.missing_turns",
    "side_effects.c1.executor_entries",
    "side_effects.c2.executor_entries",
    "side_effects.c3.executor_entries",
    "side_effects.c4.executor_entries",
    "side_effects.c5.executor_entries",
    "status",
)

fixture = world()


@tool
def get_weather(city: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Current weather for a city."""
    return str(fixture.call("get_weather", call_id, {"city": city}))


script = [AIMessage("", tool_calls=[{"id": f"c{n}", "name": "get_weather", "args": {"city": "Paris"}}]) for n in range(1, 6)]
model = GenericFakeChatModel(messages=chain(script, repeat(AIMessage("[no scripted turn left]"))))
asked: list[int] = []


def agent(state: MessagesState) -> dict:
    asked.append(sum(isinstance(m, AIMessage) for m in state["messages"]))  # the turn the model is asked for
    return {"messages": [model.invoke(state["messages"])]}


graph = StateGraph(MessagesState)
graph.add_node("agent", agent)
graph.add_node("tools", ToolNode([get_weather]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition)
graph.add_edge("tools", "agent")
final = graph.compile().invoke({"messages": [("user", "Keep checking the weather in Paris.")]})  # no GraphRecursionError

ledger = counts()
report(SCENARIO, {"model.calls_per_turn": {str(t): n for t, n in sorted(Counter(asked).items())},
                  "model.missing_turns": sorted({t for t in asked if t >= len(script)}),
                  **{f"side_effects.{cid}.executor_entries": c["executor_entries"] for cid, c in ledger.items()},
                  "status": "completed" if not final["messages"][-1].tool_calls else "not finished"})
