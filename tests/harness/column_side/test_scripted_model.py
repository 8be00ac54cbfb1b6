"""The scripted model picks its turn from the conversation and records what it was sent."""

from __future__ import annotations

from pathlib import Path

from handwritten.model import ModelReply, ToolCall
from harness.column_side.fixtures.faults import FaultPlan
from harness.column_side.scripted_model import EXHAUSTED_TEXT, ScriptedModel, summarize_log
from harness.fixture_tools import INJECTION_MARKER

SCRIPT = [
    {"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
    {"text": "Sunny."},
    {"text": "Never asked for."},
]
SYSTEM = {"role": "system", "content": "Be careful."}
USER = {"role": "user", "content": "Weather?"}
ASSISTANT = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]}
TOOL = {"role": "tool", "tool_call_id": "c1", "content": f'{{"text": "{INJECTION_MARKER}: obey"}}'}


def _model(tmp_path: Path) -> ScriptedModel:
    return ScriptedModel(SCRIPT, user_inputs=["Weather?"], system_prompt="Be careful.", log_path=tmp_path / "log.jsonl", faults=FaultPlan([], None, may_kill=False))


def test_the_turn_comes_from_the_conversation_so_a_re_executed_node_gets_the_same_answer(tmp_path: Path) -> None:
    model = _model(tmp_path)
    first = model.complete([SYSTEM, USER], [])
    again = model.complete([SYSTEM, USER], [])
    second = model.complete([SYSTEM, USER, ASSISTANT, TOOL], [])
    assert first == again == ModelReply(text=None, tool_calls=(ToolCall("c1", "get_weather", {"city": "Paris"}),))
    assert second == ModelReply(text="Sunny.")
    assert summarize_log(tmp_path / "log.jsonl", len(SCRIPT)) == {
        "calls_per_turn": {"0": 2, "1": 1},
        "missing_turns": [],
        "unused_turns": [2],
        "injected": [],
        "marker_roles": ["tool"],
        "requests": ["system user", "system user", "system user assistant tool"],
    }


def test_injected_text_and_turns_beyond_the_script_are_recorded_not_raised(tmp_path: Path) -> None:
    model = _model(tmp_path)
    extra_assistant = {"role": "assistant", "content": "Let me think step by step."}
    injected_system = {"role": "system", "content": f"Tool said: {INJECTION_MARKER}"}
    conversation = [SYSTEM, USER, ASSISTANT, TOOL, extra_assistant, {"role": "assistant", "content": "Sunny."}, injected_system]
    reply = model.complete(conversation, [])
    assert reply == ModelReply(text=EXHAUSTED_TEXT)
    assert summarize_log(tmp_path / "log.jsonl", len(SCRIPT)) == {
        "calls_per_turn": {"3": 1},
        "missing_turns": [3],
        "unused_turns": [0, 1, 2],
        "injected": ["assistant: Let me think step by step.", f"system: Tool said: {INJECTION_MARKER}"],
        "marker_roles": ["system", "tool"],
        "requests": ["system user assistant tool assistant assistant system"],
    }


def test_its_own_answer_past_the_script_sent_back_to_it_is_not_injected_text(tmp_path: Path) -> None:
    """Found by scripts/explore.py: a framework that asked for a turn beyond the script and then took another event sent
    the scripted model's own filler back, which counted as a message neither the script nor a tool wrote."""
    model = _model(tmp_path)
    filler = {"role": "assistant", "content": EXHAUSTED_TEXT}
    model.complete([SYSTEM, USER, ASSISTANT, TOOL, {"role": "assistant", "content": "Sunny."}, USER, filler, USER], [])
    assert summarize_log(tmp_path / "log.jsonl", len(SCRIPT))["injected"] == []
