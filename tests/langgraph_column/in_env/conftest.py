"""Fixtures of the LangGraph column's in-environment tests: a glue ``Contract`` on a fixture world in ``tmp_path``."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from adapters.glue_blocks import Contract
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import ToolRegistry
from harness.column_side.fixtures.world import FixtureWorld

TOOLS = ["put_note", "drop_database", "transfer_funds", "get_weather"]


@pytest.fixture
def events() -> list[dict[str, Any]]:
    """The trace events the contract emits, in order."""
    return []


@pytest.fixture
def contract(tmp_path: Path, events: list[dict[str, Any]]) -> Contract:
    """A contract over four fixture tools, step bound 2, emitting into ``events``; no fault ever fires."""
    world = FixtureWorld(tmp_path, [], may_kill=False)
    return Contract(
        session_id="s", registry=ToolRegistry(world.tool_specs(TOOLS)),
        idempotency=SqliteIdempotencyStore(str(tmp_path / "contract.sqlite")), intents=tmp_path / "intents.jsonl",
        emit=events.append, fire_after_intent=lambda call_id: None, handover=lambda call_id: contextlib.nullcontext(),
        max_steps=2,
    )
