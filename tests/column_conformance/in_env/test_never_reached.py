"""A call that never reaches its tool does not hold the calls after it: its arguments break the tool's schema (and, where
the harness orders a framework's batch on LangChain's tool callbacks, ``checkpoint_schedule.order_batches``, a call that
names no tool too), and the read listed after it runs at once, not after the order's give-up time."""

from __future__ import annotations

import time
from typing import Any

from conformance import RUN, Play, scenario

from harness.column_side.protocol import ColumnAdapter

# The columns whose batches the harness orders in defaults too: there the framework's own answer to a call that names
# no tool is a message, and the order must not wait for it. Elsewhere an unknown tool is the framework's to answer
# (the OpenAI Agents SDK raises, in both modes: evidence/openai_agents.json, unknown_tool_called), so it is left out.
ORDERED_BY_CALLBACKS = {"langgraph", "langchain"}


def modes(column: ColumnAdapter) -> list[str]:
    return ["contract", *(["defaults"] if column.name in ORDERED_BY_CALLBACKS else [])]


def _calls(column: ColumnAdapter) -> list[dict[str, Any]]:
    unknown = [{"id": "u1", "name": "no_such_tool", "arguments": {}}] if column.name in ORDERED_BY_CALLBACKS else []
    return [{"id": "x1", "name": "get_balance", "arguments": {"account": 5}}, *unknown, {"id": "b1", "name": "get_balance", "arguments": {"account": "ACC-1"}}]


def test_a_call_that_never_reaches_its_tool_does_not_hold_the_calls_after_it(mode: str, play: Play, column: ColumnAdapter) -> None:
    never_reached = scenario("refused_beside_read", ("get_balance",), [{"tool_calls": _calls(column)}, {"text": "Here it is."}], [RUN])
    started = time.monotonic()
    played = play(mode, never_reached)
    assert played.statuses == ["completed"] and played.counts("tool_entries")[-1] == {"b1": 1}
    assert time.monotonic() - started < 5
