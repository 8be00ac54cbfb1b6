"""Unit tests of the AgentScope column's glue and model adapter, against the real AgentScope."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from agentscope.message import ToolCallBlock, ToolCallState

from adapters.agentscope.glue import ContractMiddleware, Executor
from adapters.agentscope.model import to_neutral
from adapters.glue_blocks import Contract
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import ToolRegistry
from harness.column_side.world import FixtureWorld

TRANSFER = {"from_account": "A", "to_account": "B", "amount_cents": 5}
NOTE = {"key": "k", "text": "t"}


class Bodies:
    """A world whose tool bodies are the test's: ``bodies[call_id]`` runs for that call."""

    def __init__(self) -> None:
        self.bodies: dict[str, Callable[[], Any]] = {}

    def call(self, tool: str, call_id: str, args: dict[str, Any]) -> Any:
        return self.bodies[call_id]()


@pytest.fixture
def events() -> list[dict[str, Any]]:
    """The contract's trace events, in order."""
    return []


@pytest.fixture
def contract(tmp_path: Path, events: list[dict[str, Any]]) -> Contract:
    """Session ``s1`` over put_note, drop_database and transfer_funds, at most 3 model turns."""
    world = FixtureWorld(tmp_path, [], may_kill=False)
    return Contract("s1", ToolRegistry(world.tool_specs(["put_note", "drop_database", "transfer_funds"])),
                    SqliteIdempotencyStore(str(tmp_path / "c.sqlite")), tmp_path / "intents.jsonl", events.append,
                    lambda call_id: None, lambda call_id: contextlib.nullcontext(), max_steps=3)


@pytest.fixture
def bodies() -> Bodies:
    return Bodies()


@pytest.fixture
def executor(contract: Contract, bodies: Bodies) -> Executor:
    return Executor(contract, bodies)


@pytest.fixture
def middleware(contract: Contract, executor: Executor) -> ContractMiddleware:
    return ContractMiddleware(contract, executor, lambda state: None)


def test_glue_validates_then_applies_policy_on_the_raw_arguments_as_agentscopes_permission_decision(
    middleware: ContractMiddleware, events: list[dict[str, Any]],
) -> None:
    def decide(call_id: str, name: str, args: dict[str, Any], state: ToolCallState = ToolCallState.PENDING) -> str:
        call = ToolCallBlock(id=call_id, name=name, input=json.dumps(args), state=state)

        async def never(**kwargs: Any) -> Any:
            raise AssertionError("the glue decides; AgentScope's own per-tool decision is not consulted")

        return str(asyncio.run(middleware.on_check_permission(turn(call), {"tool_call": call}, never)).behavior.value)

    assert [
        decide("a", "put_note", {**NOTE, "priority": "2"}),  # "2" is not an integer
        decide("b", "drop_database", {"name": "prod"}),
        decide("c", "transfer_funds", TRANSFER),
        decide("c", "transfer_funds", TRANSFER, ToolCallState.ALLOWED),  # the human confirmed it
        decide("d", "put_note", NOTE),
    ] == ["deny", "deny", "ask", "allow", "allow"]
    assert [e["call_id"] for e in events if e["kind"] == "schema_rejected"] == ["a"]


def turn(*calls: ToolCallBlock) -> Any:
    """An agent whose last turn holds ``calls``, as the permission hook reads it."""
    message = SimpleNamespace(get_content_blocks=lambda kind: list(calls) if kind == "tool_call" else [])
    return SimpleNamespace(state=SimpleNamespace(context=[message]))


def test_a_call_asks_with_its_turn_while_a_high_risk_call_of_the_turn_is_undecided(middleware: ContractMiddleware) -> None:
    """A turn is approved as a whole: a note beside a transfer that is not decided asks (the session confirms it with
    the turn's last decision); once the transfer is allowed (or has its answer), the note is allowed."""
    note = ToolCallBlock(id="n", name="put_note", input=json.dumps(NOTE))

    async def never(**kwargs: Any) -> Any:
        raise AssertionError("not consulted")

    def behavior(transfer_state: ToolCallState) -> str:
        transfer = ToolCallBlock(id="t", name="transfer_funds", input=json.dumps(TRANSFER), state=transfer_state)
        return str(asyncio.run(middleware.on_check_permission(turn(note, transfer), {"tool_call": note}, never)).behavior.value)

    assert [behavior(s) for s in (ToolCallState.PENDING, ToolCallState.ASKING, ToolCallState.ALLOWED, ToolCallState.FINISHED)] == ["ask", "ask", "allow", "allow"]


def test_glue_runs_once_and_settles_an_uncertain_call(contract: Contract, executor: Executor, bodies: Bodies) -> None:
    """At most one execution per key; a timeout after entry is uncertain until the reconcile step settles it."""
    runs: list[int] = []

    def timeout() -> Any:
        raise TimeoutError("late")

    def call(tool: str, call_id: str, args: dict[str, Any]) -> list[Any]:
        return [executor.call(tool, call_id, args), type(executor.results.pop(call_id)).__name__]

    bodies.bodies = {"d": lambda: runs.append(1) or {"ok": True}, "c": timeout}
    assert call("put_note", "d", NOTE) == [{"ok": True}, "Ok"]
    assert call("put_note", "d", NOTE) == [{"ok": True}, "Replay"]
    assert call("transfer_funds", "c", TRANSFER) == [{"error": "outcome unknown: reconcile required"}, "Uncertain"]
    assert contract.idempotency.get("s1/c").state.value == "uncertain"
    bodies.bodies["c"] = lambda: runs.append(1) or {"ok": True}
    executor.settlements["c"] = "confirmed"
    assert call("transfer_funds", "c", TRANSFER) == [{"reconciled": "confirmed"}, "Reconciled"]
    assert len(runs) == 1  # neither the replay nor the confirmed reconcile ran the body again


def test_the_model_sees_neutral_chat_dicts_with_the_injected_wall_clock_time_masked() -> None:
    """The mask keeps the evidence stable across runs."""
    hint = {"role": "user", "content": [{"type": "text", "text": "<current-time>2031-02-03T04:05:06</current-time>"}]}
    calls = [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]
    assert [to_neutral(hint), to_neutral({"role": "assistant", "name": "x", "content": None, "tool_calls": calls})] == [
        {"role": "user", "content": "<current-time>(wall clock)</current-time>"},
        {"role": "assistant", "content": None, "tool_calls": calls},
    ]
