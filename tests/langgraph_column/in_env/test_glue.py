"""Unit tests of the LangGraph column's contract glue (``adapters/langgraph/glue.py``)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from adapters.glue_blocks import Contract
from adapters.langgraph import glue


def test_the_guard_rejects_raw_arguments_and_denied_tools_without_entering_them_and_replays(
    contract: Contract, events: list[dict[str, Any]]
) -> None:
    guard = glue.ToolGuard(contract)
    entered: list[str] = []

    def execute(request: Any) -> ToolMessage:
        entered.append(request.tool_call["id"])
        return ToolMessage('{"stored":true}', tool_call_id=request.tool_call["id"])

    def ask(call_id: str, name: str, args: dict[str, Any]) -> Any:
        return guard(SimpleNamespace(tool_call={"id": call_id, "name": name, "args": args}), execute)

    assert ask("c1", "put_note", {"key": "k", "text": "t", "priority": "2"}).artifact == {"status": "error"}
    assert ask("c2", "drop_database", {"name": "prod"}).artifact == {"status": "refused"}
    assert ask("c3", "nope", {}).artifact == {"status": "error"}
    assert entered == []
    first = ask("c4", "put_note", {"key": "k", "text": "t"})
    again = ask("c4", "put_note", {"key": "k", "text": "t"})
    assert entered == ["c4"] and again.artifact == {"status": "replayed"} and again.content == first.content
    assert ask("c4", "put_note", {"key": "k", "text": "other"}).artifact == {"status": "error"}  # same key, other args
    assert glue.resumed(contract, [{"id": "c4", "name": "put_note", "args": {}}])[1] == "after_execute"
    assert glue.resumed(contract, [{"id": "c5", "name": "put_note", "args": {}}])[1] == "before_execute"
    # the guard runs in ToolNode's threads: admission is traced where the call was routed, never here (no race)
    assert not [e for e in events if e["kind"] in ("call_admitted", "schema_rejected")]


def test_every_call_is_admitted_at_routing_only_held_ones_are_asked_about_and_the_bound_counts_the_saved_turns(
    contract: Contract, events: list[dict[str, Any]]
) -> None:
    asks = glue.asks(contract)
    transfer = {"from_account": "A", "to_account": "B", "amount_cents": 5}
    assert asks({"id": "c1", "name": "transfer_funds", "args": transfer})
    assert not asks({"id": "c2", "name": "transfer_funds", "args": {**transfer, "amount_cents": "5"}})  # no coercion
    assert not asks({"id": "c3", "name": "get_weather", "args": {"city": "Oslo"}})
    assert [(e["kind"], e["call_id"]) for e in events] == [("call_admitted", "c1"), ("schema_rejected", "c2"), ("call_admitted", "c3")]
    turn = AIMessage("", tool_calls=[{"id": "c3", "name": "get_weather", "args": {"city": "Oslo"}}])
    answer = ToolMessage("x", tool_call_id="c3")
    next_turn = glue.next_turn(contract)
    assert next_turn([HumanMessage("hi")]) == next_turn([HumanMessage("hi"), turn, answer]) == "agent"
    assert next_turn([HumanMessage("hi"), turn, answer, turn, answer]) == "__end__"
    assert next_turn([HumanMessage("hi"), turn, turn, HumanMessage("again")]) == "agent"  # counted since the last user input
