"""The agent as a hand-built LangGraph ``StateGraph``, the way LangGraph's docs teach it.

    START -> agent -> (tool calls?) -> approval (one task per call to ask about) -> dispatch -> tools -> agent -> ...
                                    \\-> tools (no call to ask about)            \\-> agent (every call rejected)
                                    \\-> END (no tool call: the final answer)

``agent`` calls the chat model bound to the tools. ``approval`` is the docs' approve-or-reject
node, fanned out with ``Send``: one task per call to ask about, each pausing with one
``interrupt()`` about its own call, so each interrupt has its own id and the human's answers
are paired with their calls by interrupt id (``Command(resume={interrupt_id: answer})``, the
docs' "handling multiple interrupts"). ``dispatch`` is the map-reduce join: once every approval
task has answered, it sends the turn's calls that were not rejected to ``tools``
(``langgraph.prebuilt.ToolNode``). A turn with a call to ask about waits as a whole.

The two modes share this graph. What differs comes in as arguments: which calls are asked
about (``asks``), the ``ToolNode``'s ``wrap_tool_call`` hook and the step bound before each
model turn (``next_turn``), the last two contract glue only.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import Command, Send, interrupt

from adapters.langchain_tools import TOOL_RUNTIME, SessionUser
from handwritten.canonical import canonical_json

ToolCall = dict[str, Any]


def tool_message(call: ToolCall, status: str, output: Any) -> ToolMessage:
    """A result that did not come from the tool itself (rejection, refusal, replay); ``artifact`` says which."""
    success = status in ("ok", "replayed", "reconciled")
    return ToolMessage(canonical_json(output), tool_call_id=call["id"], name=call["name"], status="success" if success else "error", artifact={"status": status})


def open_calls(messages: list[AnyMessage]) -> list[ToolCall]:
    """The last model turn's calls that have no tool result yet, in the model's order."""
    last = max((i for i, m in enumerate(messages) if isinstance(m, AIMessage)), default=None)
    if last is None:
        return []
    answered = {m.tool_call_id for m in messages[last:] if isinstance(m, ToolMessage)}
    calls = cast(list[ToolCall], cast(AIMessage, messages[last]).tool_calls)
    return [c for c in calls if c["id"] not in answered]


def tool_node(tools: list[BaseTool], wrap_tool_call: Any) -> ToolNode:
    """LangGraph's ``ToolNode``, with the contract's guard around each call when there is one. LangGraph before 1.0 has
    no ``wrap_tool_call`` hook: there the guard wraps the node's own run of one call (``_GuardedToolNode``)."""
    if wrap_tool_call is None:
        return ToolNode(tools)
    # contract glue: start
    if TOOL_RUNTIME:
        return ToolNode(tools, wrap_tool_call=wrap_tool_call)  # type: ignore[call-arg,unused-ignore]  # 1.0's hook
    return _GuardedToolNode(tools, wrap_tool_call)
    # contract glue: end


# contract glue: start
class _GuardedToolNode(ToolNode):
    """LangGraph 0.6's ``ToolNode`` with the guard around ``_run_one`` (one call, in the node's thread for it: where 1.0
    calls ``wrap_tool_call``). Its own error handling is off, as 1.0's is for an exception of the tool's body, so the
    guard sees the tool fail (``langgraph/prebuilt/tool_node.py`` 0.6.5, ``ToolNode.__init__`` and ``_run_one``)."""

    def __init__(self, tools: list[BaseTool], guard: Any) -> None:
        super().__init__(tools, handle_tool_errors=False)
        self._guard = guard

    def _run_one(self, call: Any, input_type: Any, config: Any) -> Any:
        run = super()._run_one
        return self._guard(SimpleNamespace(tool_call=call), lambda request: run(request.tool_call, input_type, config))
# contract glue: end


def agent_graph(
    model: BaseChatModel,
    tools: list[BaseTool],
    asks: Callable[[ToolCall], bool],
    system_prompt: str | None,
    wrap_tool_call: Any = None,
    next_turn: Callable[[list[AnyMessage]], str] | None = None,
) -> StateGraph[MessagesState, SessionUser, MessagesState, MessagesState]:
    """The agent graph, not yet compiled. ``next_turn(messages)`` routes to ``agent`` or, with no turn left, ``END``."""
    bound_model = model.bind_tools(tools)

    def agent(state: MessagesState) -> dict[str, Any]:
        system = [SystemMessage(system_prompt)] if system_prompt else []
        return {"messages": [bound_model.invoke([*system, *state["messages"]])]}

    def route(state: MessagesState) -> list[Send] | str:
        calls = open_calls(state["messages"])
        if not calls:
            return END
        asked = [c for c in calls if asks(c)]
        return [Send("approval", c) for c in asked] if asked else "tools"

    def approval(call: Any) -> dict[str, Any]:  # a Send's argument: one call
        answer = interrupt({"kind": "approval", "call_id": call["id"], "tool": call["name"], "args": call["args"]})
        if answer["approve"]:
            return {}
        return {"messages": [tool_message(call, "rejected", {"error": f"rejected by the human approver: {answer['reason']}"})]}

    def dispatch(state: MessagesState) -> Command[Any]:
        run = open_calls(state["messages"])
        if run:
            return Command(goto=[Send("tools", run)])
        if next_turn is None:
            return Command(goto="agent")  # every call was rejected: the model hears it
        # contract glue: start
        return Command(goto=next_turn(state["messages"]))
        # contract glue: end

    graph = StateGraph(MessagesState, context_schema=SessionUser)  # the runtime context each stream passes: the session's user
    graph.add_node("agent", agent)
    graph.add_node("approval", approval)  # type: ignore[arg-type]  # a Send worker: its input is one call, not the state
    graph.add_node("dispatch", dispatch, destinations=("tools", "agent") if next_turn is None else ("tools", "agent", END))
    graph.add_node("tools", tool_node(tools, wrap_tool_call))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["approval", "tools", END])
    graph.add_edge("approval", "dispatch")
    if next_turn is None:
        graph.add_edge("tools", "agent")
        return graph
    # contract glue: start
    graph.add_conditional_edges("tools", lambda state: next_turn(state["messages"]), ["agent", END])  # the step bound
    return graph
    # contract glue: end
