"""The agent as a hand-built LangGraph ``StateGraph``, the way LangGraph's human-in-the-loop docs teach it.

    START -> agent -> (tool calls?) -> approval -> tools -> agent -> ... -> END
                                    \\-> tools (no high-risk call in the turn)

``agent`` calls the chat model bound to the tools; ``approval`` pauses with
``interrupt()`` before any high-risk tool call runs and resumes on
``Command(resume=decision)``; ``tools`` is ``langgraph.prebuilt.ToolNode``. A turn with a
high-risk call waits as a whole: nothing of it runs until its high-risk calls are decided.

The two modes share this graph. What differs comes in through ``Gate`` (how a human's
decision is judged, which calls are asked about) and the ``ToolNode``'s
``wrap_tool_call`` hook (contract glue only).
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import Command, Send, interrupt

from handwritten.canonical import canonical_json

from .trace import Trace


class Gate(Protocol):
    """How the approval node judges a human's answer, per mode."""

    def asks_about(self, call: dict[str, Any]) -> bool:
        """Whether this high-risk call is put to the human (the contract asks only about valid calls)."""

    def validated(self) -> bool:
        """Whether a call's arguments were validated before the pause."""

    def decide(self, answer: dict[str, Any], undecided: list[dict[str, Any]]) -> tuple[dict[str, Any], str] | str:
        """The call an answer decides and ``approve`` / ``reject``, or the reason the answer is refused."""


def last_ai(state: MessagesState) -> AIMessage:
    return next(m for m in reversed(state["messages"]) if isinstance(m, AIMessage))


def tool_message(call: dict[str, Any], status: str, output: Any) -> ToolMessage:
    """A result that did not come from the tool itself (rejection, refusal, replay); ``artifact`` says which."""
    return ToolMessage(
        canonical_json(output), tool_call_id=call["id"], name=call["name"], status="success" if status in ("ok", "replayed", "reconciled") else "error", artifact={"status": status}
    )


def agent_graph(
    model: BaseChatModel,
    tools: list[BaseTool],
    high_risk: set[str],
    gate: Gate,
    trace: Trace,
    system_prompt: str | None,
    wrap_tool_call: Any = None,
) -> StateGraph:
    """The agent graph, not yet compiled."""
    bound = model.bind_tools(tools)

    def agent(state: MessagesState) -> dict[str, Any]:
        system = [SystemMessage(system_prompt)] if system_prompt else []
        return {"messages": [bound.invoke(system + state["messages"])]}

    def route(state: MessagesState) -> Literal["approval", "tools", "__end__"]:
        calls = last_ai(state).tool_calls
        if not calls:
            return END
        return "approval" if any(c["name"] in high_risk for c in calls) else "tools"

    def approval(state: MessagesState) -> Command[Literal["tools", "agent"]]:
        calls = last_ai(state).tool_calls
        undecided = [c for c in calls if c["name"] in high_risk and gate.asks_about(c)]
        rejected: list[ToolMessage] = []
        refused: str | None = None
        while undecided:
            question = {"kind": "approval", "pending": [_pending(c) for c in undecided], "validated": gate.validated()}
            answer = interrupt({**question, "refused": refused} if refused else question)
            current = answer.get("driver_step") == trace.driver_step  # a replayed old answer is not traced again
            verdict = gate.decide(answer, undecided)
            if isinstance(verdict, str):  # refused: ask again, saying why
                refused = verdict
                if current:
                    trace.emit({"kind": "approval_refused", "call_id": answer.get("call_id"), "reason": verdict})
                continue
            call, decision = verdict
            refused = None
            undecided = [c for c in undecided if c["id"] != call["id"]]
            if current:
                trace.emit({"kind": f"approval_{'granted' if decision == 'approve' else 'rejected'}", "call_id": call["id"]})
            if decision == "reject":
                reason = answer.get("reason", "not approved")
                rejected.append(tool_message(call, "rejected", {"error": f"rejected by the human approver: {reason}"}))
        done = {m.tool_call_id for m in rejected}
        run = [c for c in calls if c["id"] not in done]
        return Command(update={"messages": rejected}, goto=[Send("tools", run)] if run else "agent")

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("approval", approval)
    graph.add_node("tools", ToolNode(tools, wrap_tool_call=wrap_tool_call))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["approval", "tools", END])
    graph.add_edge("tools", "agent")
    return graph


def _pending(call: dict[str, Any]) -> dict[str, Any]:
    return {"call_id": call["id"], "tool": call["name"], "args": call["args"]}


class DocsGate:
    """Defaults: the docs' review node. Every high-risk call is put to the human, unvalidated; the
    answer's ``action`` decides the call asked about (there is no token or call id to check)."""

    def asks_about(self, call: dict[str, Any]) -> bool:
        return True

    def validated(self) -> bool:
        return False

    def decide(self, answer: dict[str, Any], undecided: list[dict[str, Any]]) -> tuple[dict[str, Any], str] | str:
        return undecided[0], "reject" if answer["action"] == "reject" else "approve"
