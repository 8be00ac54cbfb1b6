"""Unit test of the LangGraph column's ``ToolNode`` guard (``adapters/langgraph/glue.py``) on its own: what a run does not
show (the guard traces nothing in ``ToolNode``'s threads, a key reused with other arguments, the position a resume
reports). What the glue does in a run, as every column's does, is the conformance suite's (``tests/column_conformance``)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from langchain_core.messages import ToolMessage

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
