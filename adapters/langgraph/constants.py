"""The LangGraph defaults no name holds, measured on small graphs in the column's environment (at each pin).

- ``tool_error``: what the prebuilt ``ToolNode``, built as the column builds it in ``defaults`` (``ToolNode(tools)``),
  does with an exception of a tool's body: ``message`` (the model gets an error ``ToolMessage``) or ``raise`` (the
  run ends in the exception). LangGraph 0.6's default ``handle_tool_errors=True`` catches every exception; 1.0's
  ``_default_handle_tool_errors`` re-raises all but argument errors.
- ``interrupt_ids``: whether two ``interrupt()`` calls in one node get one id (``one per task``) or an id each
  (``one per interrupt``), read from the ids a checkpointed graph reports for them.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import Command, interrupt


@tool
def fails() -> str:
    """A tool whose body raises."""
    raise RuntimeError("the tool's body failed")


def tool_error() -> dict[str, Any]:
    """``message`` or ``raise``: one call of a tool that raises, through ``ToolNode([tool])`` in a one-node graph."""
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode([fails]))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    call = {"name": "fails", "args": {}, "id": "c1", "type": "tool_call"}
    try:
        out = graph.compile().invoke({"messages": [AIMessage("", tool_calls=[call])]})
    except RuntimeError:
        value = "raise"
    else:
        value = "message" if out["messages"][-1].status == "error" else "neither"
    return {"ref": "langgraph.prebuilt.tool_node:ToolNode(handle_tool_errors)", "value": value}


def interrupt_ids() -> dict[str, Any]:
    """``one per task`` or ``one per interrupt``: the ids LangGraph reports for a node's first and second ``interrupt()``."""

    def asks_twice(state: MessagesState) -> dict[str, Any]:
        interrupt("first")
        interrupt("second")
        return {}

    graph = StateGraph(MessagesState)
    graph.add_node("asks_twice", asks_twice)
    graph.add_edge(START, "asks_twice")
    graph.add_edge("asks_twice", END)
    compiled, config = graph.compile(checkpointer=InMemorySaver()), RunnableConfig(configurable={"thread_id": "ids"})
    compiled.invoke(MessagesState(messages=[]), config)
    first = compiled.get_state(config).interrupts[0].id
    compiled.invoke(Command(resume="answer"), config)  # type: ignore[call-overload,unused-ignore]  # Command[Never] to mypy
    second = compiled.get_state(config).interrupts[0].id
    return {"ref": "langgraph.types:interrupt (the ids of a node's two interrupts)", "value": "one per task" if first == second else "one per interrupt"}
