"""Fixtures of the LangChain column's in-environment tests: the contract glue middleware on a fixture world in
``tmp_path``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from adapters.glue_blocks import Contract
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import ToolRegistry
from harness.column_side.world import FixtureWorld

if TYPE_CHECKING:
    from adapters.langchain.glue import ContractMiddleware

TOOLS = ["put_note", "drop_database", "transfer_funds", "get_weather"]


@pytest.fixture
def events() -> list[dict[str, Any]]:
    """The trace events the contract emits, in order."""
    return []


@pytest.fixture
def middleware(tmp_path: Path, events: list[dict[str, Any]]) -> ContractMiddleware:
    """The contract glue over four fixture tools, step bound 2, emitting into ``events``; no fault ever fires."""
    # Imported here, not at the top: the project's pytest, which has no LangChain, still loads this conftest
    # (tests/conftest.py ignores the files under in_env, not the folder, and a folder's conftest loads with it).
    from adapters.langchain.glue import ContractMiddleware

    world = FixtureWorld(tmp_path, [], may_kill=False)
    contract = Contract("s1", ToolRegistry(world.tool_specs(TOOLS)), SqliteIdempotencyStore(str(tmp_path / "c.sqlite")),
                        tmp_path / "intents.jsonl", events.append, lambda call_id: None, world.handover, max_steps=2)
    return ContractMiddleware(contract)
