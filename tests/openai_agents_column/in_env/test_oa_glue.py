"""Unit tests of the OpenAI Agents SDK column's pieces on their own, against the real SDK: which tools get an approval
callable (the SDK would pause on arguments that are not a JSON object without asking one), and the scripted model's view
of the SDK's items. The glue in a run, as every column's, is the conformance suite's (``tests/column_conformance``)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest

from adapters.glue_blocks import Contract
from adapters.openai_agents.glue import Glue
from adapters.openai_agents.model import to_neutral
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import ToolRegistry
from harness.column_side.fixtures.world import FixtureWorld


@pytest.fixture
def events() -> list[dict[str, Any]]:
    """The contract's trace events, in order."""
    return []


@pytest.fixture
def glue(tmp_path: Path, events: list[dict[str, Any]]) -> Glue:
    """The glue over session ``s1``'s contract: put_note, drop_database and transfer_funds, at most 3 model turns."""
    world = FixtureWorld(tmp_path, [], may_kill=False)
    contract = Contract(
        session_id="s1", registry=ToolRegistry(world.tool_specs(["put_note", "drop_database", "transfer_funds"])),
        idempotency=SqliteIdempotencyStore(str(tmp_path / "contract.sqlite")), intents=tmp_path / "intents.jsonl", emit=events.append,
        fire_after_intent=lambda call_id: None, handover=lambda call_id: contextlib.nullcontext(), max_steps=3,
    )
    return Glue(contract)


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
