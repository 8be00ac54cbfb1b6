"""Unit tests of the LangGraph column's contract glue, run on the column's own interpreter (LangGraph is not
importable from the project's environment)."""

from __future__ import annotations

import textwrap

import lg_env

python, run_in_column = lg_env.python, lg_env.run_in_column  # the column's interpreter (pytest fixtures)

CONTRACT = """
    import contextlib
    from pathlib import Path
    from handwritten.idempotency import SqliteIdempotencyStore
    from handwritten.tools import ToolRegistry
    from harness.column_side.world import FixtureWorld
    from adapters.glue_blocks import Contract
    from adapters.langgraph import glue

    world = FixtureWorld(Path(TMP), [], may_kill=False)
    events = []
    contract = Contract(
        session_id="s", registry=ToolRegistry(world.tool_specs(["put_note", "drop_database", "transfer_funds", "get_weather"])),
        idempotency=SqliteIdempotencyStore(TMP + "/contract.sqlite"), intents=Path(TMP) / "intents.jsonl", emit=events.append,
        fire_after_intent=lambda call_id: None, handover=lambda call_id: contextlib.nullcontext(), max_steps=2,
    )
"""


def _run(run_in_column, code: str, tmp: str) -> None:  # type: ignore[no-untyped-def]
    """``code`` after the contract's set-up, on the column's interpreter."""
    run_in_column(textwrap.dedent(CONTRACT) + textwrap.dedent(code), tmp, timeout=120)


def test_the_guard_rejects_raw_arguments_and_denied_tools_without_entering_them_and_replays(run_in_column, tmp_path) -> None:
    _run(run_in_column, """
        from types import SimpleNamespace
        from langchain_core.messages import ToolMessage

        guard = glue.ToolGuard(contract)
        entered = []
        def execute(request):
            entered.append(request.tool_call["id"])
            return ToolMessage('{"stored":true}', tool_call_id=request.tool_call["id"])
        def ask(call_id, name, args):
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
    """, str(tmp_path))


def test_only_admitted_calls_the_policy_holds_are_asked_about_and_the_bound_counts_the_saved_turns(run_in_column, tmp_path) -> None:
    _run(run_in_column, """
        from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

        asks = glue.asks(contract)
        transfer = {"from_account": "A", "to_account": "B", "amount_cents": 5}
        assert asks({"id": "c1", "name": "transfer_funds", "args": transfer})
        assert not asks({"id": "c2", "name": "transfer_funds", "args": {**transfer, "amount_cents": "5"}})  # no coercion
        assert not asks({"id": "c3", "name": "get_weather", "args": {"city": "Oslo"}})
        assert [e["kind"] for e in events] == ["call_admitted", "schema_rejected"]
        turn = AIMessage("", tool_calls=[{"id": "c3", "name": "get_weather", "args": {"city": "Oslo"}}])
        next_turn = glue.next_turn(contract)
        assert next_turn([HumanMessage("hi")]) == next_turn([HumanMessage("hi"), turn, ToolMessage("x", tool_call_id="c3")]) == "agent"
        assert next_turn([HumanMessage("hi"), turn, ToolMessage("x", tool_call_id="c3"), turn, ToolMessage("x", tool_call_id="c3")]) == "__end__"
        assert next_turn([HumanMessage("hi"), turn, turn, HumanMessage("again")]) == "agent"  # counted since the last user input
    """, str(tmp_path))
