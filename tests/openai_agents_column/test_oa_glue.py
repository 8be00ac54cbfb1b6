"""Unit tests of the OpenAI Agents SDK column's glue and scripted model, run on the column's own
interpreter (the SDK is not importable from the project's environment)."""

from __future__ import annotations

import textwrap

import oa_env

python, run_in_column = oa_env.python, oa_env.run_in_column  # the column's interpreter (pytest fixtures)

GLUE = """
    import asyncio, contextlib, json
    from pathlib import Path
    from agents import SQLiteSession
    from handwritten.idempotency import SqliteIdempotencyStore
    from handwritten.tools import ToolRegistry
    from harness.column_side.world import FixtureWorld
    from adapters.glue_blocks import Contract
    from adapters.openai_agents.glue import Glue, ReconcileRequired
    from adapters.openai_agents.tools import fixture_tools

    world = FixtureWorld(Path(TMP), [], may_kill=False)
    events = []
    contract = Contract(
        session_id="s1", registry=ToolRegistry(world.tool_specs(["put_note", "drop_database", "transfer_funds"])),
        idempotency=SqliteIdempotencyStore(TMP + "/contract.sqlite"), intents=Path(TMP) / "intents.jsonl", emit=events.append,
        fire_after_intent=lambda call_id: None, handover=lambda call_id: contextlib.nullcontext(), max_steps=3,
    )
    glue = Glue(contract, world.starting, world.finished)

    class Ctx:  # what the SDK hands a tool invocation: its call id
        def __init__(self, call_id): self.tool_call_id = call_id
"""


def _run(run_in_column, code: str, tmp: str) -> None:  # type: ignore[no-untyped-def]
    run_in_column(textwrap.dedent(GLUE) + textwrap.dedent(code) + "\nprint('ok')\n", tmp, timeout=120)


def test_only_an_admitted_high_risk_call_pauses(run_in_column, tmp_path) -> None:
    _run(run_in_column, """
        async def checks():
            assert not await glue.needs_approval("put_note")(None, {"key": "k", "text": "t", "priority": "2"}, "a")  # coerced type
            assert not await glue.needs_approval("drop_database")(None, {"name": "prod"}, "b")  # denied: answered, never paused
            assert await glue.needs_approval("transfer_funds")(None, {"from_account": "A", "to_account": "B", "amount_cents": 5}, "c")
            assert not await glue.needs_approval("transfer_funds")(None, {"from_account": "A", "to_account": "B", "amount_cents": "5"}, "d")
        asyncio.run(checks())
        assert [(e["kind"], e["call_id"]) for e in events] == [("schema_rejected", "a"), ("call_admitted", "b"), ("call_admitted", "c"), ("schema_rejected", "d")]
    """, str(tmp_path))


def test_the_guard_answers_rejections_runs_once_replays_and_stops_on_an_uncertain_call(run_in_column, tmp_path) -> None:
    _run(run_in_column, """
        ran = []
        async def invoke(ctx, raw):
            ran.append(ctx.tool_call_id)
            return json.dumps({"ok": ctx.tool_call_id})
        tools = {t.name: t for t in fixture_tools(world, ["put_note", "drop_database"], glue.needs_approval, failure_error_function=None)}
        for t in tools.values():
            t.on_invoke_tool = invoke
            glue.guard(t)
        async def checks():
            note = tools["put_note"].on_invoke_tool
            await note(Ctx("a"), json.dumps({"key": "k", "text": "t", "priority": "2"}))
            await tools["drop_database"].on_invoke_tool(Ctx("b"), json.dumps({"name": "prod"}))
            assert ran == [] and glue.statuses == {"a": "error", "b": "refused"}
            first = await note(Ctx("d"), json.dumps({"key": "k", "text": "t"}))
            again = await note(Ctx("d"), json.dumps({"key": "k", "text": "t"}))  # one execution per <session>/<call id>
            assert ran == ["d"] and first == again and glue.statuses["d"] == "replayed"
            async def times_out(ctx, raw):
                raise TimeoutError("after effect")
            tools["put_note"].on_invoke_tool = times_out
            glue.guard(tools["put_note"])
            try:
                await tools["put_note"].on_invoke_tool(Ctx("e"), json.dumps({"key": "k", "text": "t"}))
                raise AssertionError("no stop")
            except ReconcileRequired as stop:
                assert stop.call_id == "e"
            assert glue.uncertain_call() == "e"
            glue.settling = ("e", "confirmed")  # the reconcile step: the resumed run invokes the call again
            settled = await tools["put_note"].on_invoke_tool(Ctx("e"), json.dumps({"key": "k", "text": "t"}))
            assert json.loads(settled) == {"reconciled": "confirmed"} and glue.statuses["e"] == "reconciled"
            assert glue.uncertain_call() is None
        asyncio.run(checks())
    """, str(tmp_path))


def test_max_turns_counts_the_model_turns_since_the_last_user_input_of_the_saved_conversation(run_in_column, tmp_path) -> None:
    _run(run_in_column, """
        history = SQLiteSession("s1", TMP + "/session.sqlite")
        call = lambda cid: {"type": "function_call", "call_id": cid, "name": "put_note", "arguments": "{}"}
        output = lambda cid: {"type": "function_call_output", "call_id": cid, "output": "{}"}
        async def checks():
            await history.add_items([{"role": "user", "content": "one"}, call("a"), output("a"), {"role": "assistant", "content": "done"}])
            assert await glue.max_turns(history, new_input=True) == 3  # a new input starts the count again
            await history.add_items([{"role": "user", "content": "two"}, call("b"), call("c"), output("b"), output("c"), call("d"), output("d")])
            assert await glue.max_turns(history, new_input=False) == 1  # two turns since "two" (b and c were one turn)
        asyncio.run(checks())
    """, str(tmp_path))


def test_the_scripted_model_sees_one_assistant_message_per_turn(run_in_column, tmp_path) -> None:
    _run(run_in_column, """
        from adapters.openai_agents.model import to_neutral
        neutral = to_neutral([
            {"role": "user", "content": "hi"},
            {"type": "function_call", "call_id": "x", "name": "put_note", "arguments": "{}"},
            {"type": "function_call", "call_id": "y", "name": "put_note", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "x", "output": "1"},
            {"type": "function_call_output", "call_id": "y", "output": "2"},
        ])
        assert [m["role"] for m in neutral] == ["user", "assistant", "tool", "tool"], neutral
        assert [c["id"] for c in neutral[1]["tool_calls"]] == ["x", "y"]
    """, str(tmp_path))
