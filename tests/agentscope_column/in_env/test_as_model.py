"""Unit test of the AgentScope column's model adapter against the real AgentScope. Its contract glue, as every column's,
is the conformance suite's (``tests/column_conformance``)."""

from __future__ import annotations

from adapters.agentscope.model import to_neutral


def test_the_model_sees_neutral_chat_dicts_with_the_injected_wall_clock_time_masked() -> None:
    """The mask keeps the evidence stable across runs."""
    hint = {"role": "user", "content": [{"type": "text", "text": "<current-time>2031-02-03T04:05:06</current-time>"}]}
    calls = [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]
    assert [to_neutral(hint), to_neutral({"role": "assistant", "name": "x", "content": None, "tool_calls": calls})] == [
        {"role": "user", "content": "<current-time>(wall clock)</current-time>"},
        {"role": "assistant", "content": None, "tool_calls": calls},
    ]
