"""Unit tests of the LangChain column's contract glue (``adapters/langchain/glue.py``)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from adapters.langchain.calls import unanswered
from adapters.langchain.glue import ContractMiddleware, stopped_by_bound


def test_schema_then_policy_answer_rejected_calls_before_any_pause(middleware: ContractMiddleware, events: list[dict[str, Any]]) -> None:
    calls = [
        {"id": "a", "name": "put_note", "args": {"key": "k", "text": "t", "priority": "2"}},
        {"id": "b", "name": "drop_database", "args": {"name": "prod"}},
        {"id": "c", "name": "transfer_funds", "args": {"from_account": "A", "to_account": "B", "amount_cents": 5}},
    ]
    update = middleware.after_model({"messages": [AIMessage(content="", tool_calls=calls)]}, None)
    assert update is not None
    messages = [AIMessage(content="", tool_calls=calls), *update["messages"]]
    assert {m.tool_call_id: m.artifact["status"] for m in update["messages"]} == {"a": "error", "b": "refused"}
    assert [c["id"] for c in unanswered(messages)] == ["c"]
    assert [e["call_id"] for e in events if e["kind"] == "call_admitted"] == ["b", "c"]


def turn(call_id: str) -> list[Any]:
    """One model turn asking for the weather, and its answer."""
    return [AIMessage(content="", tool_calls=[{"id": call_id, "name": "get_weather", "args": {"city": "Paris"}}]),
            ToolMessage(content="{}", tool_call_id=call_id)]


def test_the_step_bound_counts_model_turns_since_the_last_user_message(middleware: ContractMiddleware) -> None:
    one = [HumanMessage(content="hi"), *turn("c1")]
    two = one + turn("c2")  # as a resume finds the conversation: the count is the saved one, not this run's
    again = two + [AIMessage(content="done"), HumanMessage(content="more")]
    assert middleware.before_model({"messages": one}, None) is None
    stop = middleware.before_model({"messages": two}, None)
    assert stop is not None and stop["jump_to"] == "end"
    assert stopped_by_bound(stop["messages"][0]) is True  # the closing message says the bound stopped the run
    assert middleware.before_model({"messages": again}, None) is None
    assert stopped_by_bound(AIMessage(content="done")) is False  # a model's own answer
