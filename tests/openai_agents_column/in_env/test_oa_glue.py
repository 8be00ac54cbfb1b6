"""Unit tests of the OpenAI Agents SDK column's glue and scripted model, against the real SDK."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from agents import SQLiteSession

from adapters.glue_blocks import Contract
from adapters.openai_agents.glue import Glue, ReconcileRequired
from adapters.openai_agents.model import to_neutral
from adapters.openai_agents.tools import fixture_tools
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import ToolRegistry
from harness.column_side.world import FixtureWorld


@pytest.fixture
def world(tmp_path: Path) -> FixtureWorld:
    return FixtureWorld(tmp_path, [], may_kill=False)


@pytest.fixture
def events() -> list[dict[str, Any]]:
    """The contract's trace events, in order."""
    return []


@pytest.fixture
def glue(tmp_path: Path, world: FixtureWorld, events: list[dict[str, Any]]) -> Glue:
    """The glue over session ``s1``'s contract: put_note, drop_database and transfer_funds, at most 3 model turns."""
    contract = Contract(
        session_id="s1", registry=ToolRegistry(world.tool_specs(["put_note", "drop_database", "transfer_funds"])),
        idempotency=SqliteIdempotencyStore(str(tmp_path / "contract.sqlite")), intents=tmp_path / "intents.jsonl", emit=events.append,
        fire_after_intent=lambda call_id: None, handover=lambda call_id: contextlib.nullcontext(), max_steps=3,
    )
    return Glue(contract)


class Ctx:
    """What the SDK hands a tool invocation: its call id."""

    def __init__(self, call_id: str) -> None:
        self.tool_call_id = call_id


def test_only_an_admitted_high_risk_call_pauses(glue: Glue, events: list[dict[str, Any]]) -> None:
    # A tool that is not high-risk never pauses, whatever its arguments (the SDK would pause on arguments that are not
    # a JSON object without asking a callable): its setting is False, and the guard admits its calls.
    assert glue.needs_approval("put_note") is False and glue.needs_approval("drop_database") is False

    async def checks() -> None:
        approval = glue.needs_approval("transfer_funds")
        assert callable(approval)
        assert await approval(None, {"from_account": "A", "to_account": "B", "amount_cents": 5}, "c")
        assert not await approval(None, {"from_account": "A", "to_account": "B", "amount_cents": "5"}, "d")

    asyncio.run(checks())
    assert [(e["kind"], e["call_id"]) for e in events] == [("call_admitted", "c"), ("schema_rejected", "d")]


def test_the_guard_answers_rejections_runs_once_replays_and_stops_on_an_uncertain_call(glue: Glue, world: FixtureWorld) -> None:
    ran: list[str] = []

    async def invoke(ctx: Ctx, raw: str) -> str:
        ran.append(ctx.tool_call_id)
        return json.dumps({"ok": ctx.tool_call_id})

    tools = {t.name: t for t in fixture_tools(world, ["put_note", "drop_database"], glue.needs_approval, failure_error_function=None)}
    for t in tools.values():
        t.on_invoke_tool = invoke
        glue.guard(t)

    async def times_out(ctx: Ctx, raw: str) -> str:
        raise TimeoutError("after effect")

    async def checks() -> None:
        note = tools["put_note"].on_invoke_tool
        await note(Ctx("a"), json.dumps({"key": "k", "text": "t", "priority": "2"}))
        await tools["drop_database"].on_invoke_tool(Ctx("b"), json.dumps({"name": "prod"}))
        assert ran == [] and glue.statuses == {"a": "error", "b": "refused"}
        first = await note(Ctx("d"), json.dumps({"key": "k", "text": "t"}))
        again = await note(Ctx("d"), json.dumps({"key": "k", "text": "t"}))  # one execution per <session>/<call id>
        assert ran == ["d"] and first == again and glue.statuses["d"] == "replayed"
        tools["put_note"].on_invoke_tool = times_out
        glue.guard(tools["put_note"])
        with pytest.raises(ReconcileRequired) as stop:
            await tools["put_note"].on_invoke_tool(Ctx("e"), json.dumps({"key": "k", "text": "t"}))
        assert stop.value.call_id == "e"
        assert glue.uncertain_call() == "e"
        glue.settling = ("e", "confirmed")  # the reconcile step: the resumed run invokes the call again
        settled = await tools["put_note"].on_invoke_tool(Ctx("e"), json.dumps({"key": "k", "text": "t"}))
        assert json.loads(settled) == {"reconciled": "confirmed"} and glue.statuses["e"] == "reconciled"
        assert glue.uncertain_call() is None

    asyncio.run(checks())


def test_max_turns_counts_the_model_turns_since_the_last_user_input_of_the_saved_conversation(glue: Glue, tmp_path: Path) -> None:
    history = SQLiteSession("s1", str(tmp_path / "session.sqlite"))

    def call(cid: str) -> dict[str, Any]:
        return {"type": "function_call", "call_id": cid, "name": "put_note", "arguments": "{}"}

    def output(cid: str) -> dict[str, Any]:
        return {"type": "function_call_output", "call_id": cid, "output": "{}"}

    async def checks() -> None:
        await history.add_items([{"role": "user", "content": "one"}, call("a"), output("a"), {"role": "assistant", "content": "done"}])
        assert await glue.max_turns(history, new_input=True) == 3  # a new input starts the count again
        await history.add_items([{"role": "user", "content": "two"}, call("b"), call("c"), output("b"), output("c"), call("d"), output("d")])
        assert await glue.max_turns(history, new_input=False) == 1  # two turns since "two" (b and c were one turn)

    asyncio.run(checks())


def test_the_scripted_model_sees_one_assistant_message_per_turn() -> None:
    neutral = to_neutral([
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "x", "name": "put_note", "arguments": "{}"},
        {"type": "function_call", "call_id": "y", "name": "put_note", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "x", "output": "1"},
        {"type": "function_call_output", "call_id": "y", "output": "2"},
    ])
    assert [m["role"] for m in neutral] == ["user", "assistant", "tool", "tool"], neutral
    assert [c["id"] for c in neutral[1]["tool_calls"]] == ["x", "y"]
