"""The scripted model: plays a scenario's turns and records what it was sent.

It picks its turn from the conversation it receives (the number of assistant messages
so far), never from hidden mutable state, so a re-executed node gets the same answer
and every column sees the same model. Each request is appended to a JSON-lines log
(it survives a killed process): the roles it received, any text that came neither from
the scenario nor from the tools (injected), and where the world's injection marker was.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from handwritten.canonical import canonical_json
from handwritten.model import ModelReply, ToolCall
from harness.column_side.faults import FaultPlan
from harness.fixture_tools import INJECTION_MARKER

if TYPE_CHECKING:
    from harness.scenarios import Scenario

EXHAUSTED_TEXT = "[scripted model: no scripted turn left]"


class ScriptedModel:
    """Implements ``handwritten.model.Model`` over a scenario's ``model_script``."""

    @classmethod
    def of(cls, scenario: Scenario, scratch: Path, faults: FaultPlan) -> ScriptedModel:
        """The scenario's scripted model, logging what it receives to ``<scratch>/model_log.jsonl``."""
        return cls(scenario.model_script, user_inputs=scenario.user_inputs, system_prompt=scenario.system_prompt,
                   log_path=scratch / "model_log.jsonl", faults=faults)

    def __init__(
        self,
        script: Sequence[Mapping[str, Any]],
        *,
        user_inputs: Sequence[str],
        system_prompt: str | None,
        log_path: Path,
        faults: FaultPlan,
    ) -> None:
        self._script = list(script)
        self._own_turns = {_turn_key(turn) for turn in self._script}  # one look-up per message, not a scan of the script
        self._own_turns.add(("text", EXHAUSTED_TEXT))  # its answer past the script is its own too, never injected text
        self._user_inputs = set(user_inputs)
        self._system_prompt = system_prompt
        self._log_path = log_path
        self._faults = faults

    def complete(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> ModelReply:
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        self._log(turn, messages)
        self._faults.fire("model.kill_before_turn", turn=turn)
        if turn >= len(self._script):
            return ModelReply(text=EXHAUSTED_TEXT)
        return reply_for(self._script[turn])

    def _log(self, turn: int, messages: Sequence[Mapping[str, Any]]) -> None:
        entry = {
            "turn": turn,
            "roles": [m.get("role") for m in messages],
            "injected": [t for m in messages if (t := self._injected_text(m)) is not None],
            "marker_roles": sorted({str(m.get("role")) for m in messages if INJECTION_MARKER in _text_of(m)}),
        }
        with open(self._log_path, "a", encoding="utf-8") as log:
            log.write(canonical_json(entry) + "\n")

    def _injected_text(self, message: Mapping[str, Any]) -> str | None:
        role, text = message.get("role"), _text_of(message)
        if role == "tool":
            return None
        if role == "system" and text == (self._system_prompt or ""):
            return None
        if role == "user" and text in self._user_inputs:
            return None
        if role == "assistant" and _message_key(message) in self._own_turns:
            return None
        return f"{role}: {text}"


def reply_for(turn: Mapping[str, Any]) -> ModelReply:
    """The reply a script turn stands for."""
    calls = tuple(ToolCall(c["id"], c["name"], c["arguments"]) for c in turn.get("tool_calls", ()))
    return ModelReply(text=turn.get("text"), tool_calls=calls)


def _text_of(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if content is None:
        return ""
    return content if isinstance(content, str) else canonical_json(content)


def _message_key(message: Mapping[str, Any]) -> tuple[str, Any]:
    """What makes an assistant message the script's own: its calls (ids, names) when it has any, else its text."""
    sent = tuple((c.get("id"), (c.get("function") or c).get("name")) for c in message.get("tool_calls") or ())
    return ("calls", sent) if sent else ("text", _text_of(message))


def _turn_key(turn: Mapping[str, Any]) -> tuple[str, Any]:
    """A script turn's key, comparable with ``_message_key``: a message matches a turn when their keys are equal."""
    scripted = tuple((c["id"], c["name"]) for c in turn.get("tool_calls", ()))
    return ("calls", scripted) if scripted else ("text", turn.get("text") or "")


def summarize_log(log_path: Path, script_length: int) -> dict[str, Any]:
    """Model calls per turn, turns asked beyond the script, scripted turns never asked, injected text,
    and the roles under which the injection marker reached the model."""
    entries = []
    if log_path.exists():
        entries = [json.loads(line) for line in log_path.read_text(encoding="utf-8").splitlines() if line]
    calls: dict[str, int] = {}
    for e in entries:
        calls[str(e["turn"])] = calls.get(str(e["turn"]), 0) + 1
    asked = {e["turn"] for e in entries}
    return {
        "calls_per_turn": dict(sorted(calls.items(), key=lambda kv: int(kv[0]))),
        "missing_turns": sorted(t for t in asked if t >= script_length),
        "unused_turns": sorted(set(range(script_length)) - asked),
        "injected": sorted({t for e in entries for t in e["injected"]}),
        "marker_roles": sorted({r for e in entries for r in e["marker_roles"]}),
        "requests": [" ".join(e["roles"]) for e in entries],
    }
