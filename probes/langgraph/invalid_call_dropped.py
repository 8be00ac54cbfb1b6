"""A tool call whose arguments are not JSON is dropped: ``ChatOpenAI`` (whose parsing the scripted model repeats with
``parse_tool_call`` / ``make_invalid_tool_call``) turns the model's ``{"city": `` into an ``invalid_tool_calls`` entry, and
``tools_condition`` routes on ``tool_calls`` alone, so the graph ends after that turn as if the model had answered: no tool
result (``ToolNode`` never sees the call), nothing for the model to correct, and the next turn never asked for.

Documented API only: ``StateGraph`` with ``MessagesState``, ``ToolNode`` and ``tools_condition``
(https://langchain-ai.github.io/langgraph/how-tos/tool-calling/), ``@tool`` with ``InjectedToolCallId``
(https://reference.langchain.com/python/langchain-core/tools/base/InjectedToolCallId), a scripted chat model whose raw
tool calls are parsed with ``parse_tool_call`` / ``make_invalid_tool_call``
(https://reference.langchain.com/python/langchain-core/output_parsers/openai_tools).
"""

from collections import Counter
from typing import Annotated

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers.openai_tools import make_invalid_tool_call, parse_tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "malformed_args_not_json"
SHOWS = ("model.calls_per_turn", "side_effects", "status", "step_statuses")

fixture = world()
SCRIPT = [[{"id": "c1", "name": "get_weather", "arguments": '{"city": '}],  # the raw argument text of a chat completion, cut short
          [{"id": "c2", "name": "get_weather", "arguments": '{"city": "Paris"}'}], "It is sunny in Paris."]
asked: Counter = Counter()  # model calls per script turn


class Scripted(BaseChatModel):
    """The script's turn numbered by the AI messages already in the conversation; tool calls parsed as ChatOpenAI does."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        turn = sum(isinstance(m, AIMessage) for m in messages)
        asked[str(turn)] += 1
        if isinstance(step := SCRIPT[turn], str):
            return ChatResult(generations=[ChatGeneration(message=AIMessage(step))])
        calls, invalid = [], []
        for c in step:
            wire = {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            try:
                calls.append(parse_tool_call(wire, return_id=True))
            except Exception as exc:  # noqa: BLE001 - ChatOpenAI turns every parse failure into an invalid tool call
                invalid.append(make_invalid_tool_call(wire, str(exc)))
        return ChatResult(generations=[ChatGeneration(message=AIMessage("", tool_calls=calls, invalid_tool_calls=invalid))])


@tool
def get_weather(city: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Current weather for a city."""
    return str(fixture.call("get_weather", call_id, {"city": city}))


model = Scripted()
graph = StateGraph(MessagesState)
graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
graph.add_node("tools", ToolNode([get_weather]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition)
graph.add_edge("tools", "agent")
result = graph.compile().invoke({"messages": [("user", "What is the weather in Paris?")]})
messages = result["messages"]
answered = [m for m in messages if getattr(m, "tool_call_id", None) == "c1"]
status = "completed" if not answered and not messages[-1].tool_calls else "not dropped"  # ended with c1 unanswered

KEYS = ("tool_entries", "executor_entries", "effects")
ledger = {cid: {k: row[k] for k in KEYS} for cid, row in counts().items()}  # every call the tool was entered for
report(SCENARIO, {"status": status, "step_statuses": [status], "model.calls_per_turn": dict(asked), "side_effects": ledger})
