"""What the scripted model was sent, judged the same way in process and on the wire.

The in-process scripted model (``harness.column_side.scripted_model``) and the runner's scripted
OpenAI-compatible server (``harness.runner_side.run.servers.wire``) play one scenario's ``model_script``. Both pick
the turn from the conversation they receive (the number of assistant messages so far, never hidden
state) and log one entry per request: the roles received, any text that came neither from the scenario
nor from the tools (injected), and the roles in which the world's injection marker arrived. This module
is that judgement, shared by both sides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from handwritten.canonical import canonical_json
from handwritten.model import ModelReply, ToolCall
from harness.fixture_tools import INJECTION_MARKER

EXHAUSTED_TEXT = "[scripted model: no scripted turn left]"
WALL_CLOCK = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b")
"""A date and time of day (ISO 8601): a framework that tells the model the time (AgentScope's runtime reminder) would
make the recorded injected text differ from run to run; it is recorded as ``(wall clock)``."""


class ScriptJudge:
    """Picks a request's turn and judges what it carries, for one scenario's script, inputs and system prompt."""

    def __init__(self, script: Sequence[Mapping[str, Any]], *, user_inputs: Iterable[str], system_prompt: str | None) -> None:
        self.script = list(script)
        self._own_turns = {_turn_key(turn) for turn in self.script}  # one look-up per message, not a scan of the script
        self._own_turns.add(("text", EXHAUSTED_TEXT))  # its answer past the script is its own too, never injected text
        self._user_inputs = set(user_inputs)
        self._system_prompt = system_prompt

    @staticmethod
    def turn_of(messages: Sequence[Mapping[str, Any]]) -> int:
        """The turn a request asks for: the number of assistant messages it carries."""
        return sum(1 for m in messages if m.get("role") == "assistant")

    def reply(self, turn: int) -> ModelReply:
        """The script's answer to ``turn``; past the end of the script, the exhausted text."""
        return reply_for(self.script[turn]) if turn < len(self.script) else ModelReply(text=EXHAUSTED_TEXT)

    def entry(self, turn: int, messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The log entry of one request (``summarize_entries`` reads a run's entries)."""
        return {
            "turn": turn,
            "roles": [m.get("role") for m in messages],
            "injected": [t for m in messages if (t := self._injected_text(m)) is not None],
            "marker_roles": sorted({str(m.get("role")) for m in messages if INJECTION_MARKER in text_of(m)}),
        }

    def _injected_text(self, message: Mapping[str, Any]) -> str | None:
        role, text = message.get("role"), text_of(message)
        if role == "tool":
            return None
        if role == "system" and text == (self._system_prompt or ""):
            return None
        if role == "user" and text in self._user_inputs:
            return None
        if role == "assistant" and _message_key(message) in self._own_turns:
            return None
        return f"{role}: {WALL_CLOCK.sub('(wall clock)', text)}"


def reply_for(turn: Mapping[str, Any]) -> ModelReply:
    """The reply a script turn stands for."""
    calls = tuple(ToolCall(c["id"], c["name"], c["arguments"]) for c in turn.get("tool_calls", ()))
    return ModelReply(text=turn.get("text"), tool_calls=calls)


def text_of(message: Mapping[str, Any]) -> str:
    """A message's content as text (structured content as its canonical JSON)."""
    content = message.get("content")
    if content is None:
        return ""
    return content if isinstance(content, str) else canonical_json(content)


def _message_key(message: Mapping[str, Any]) -> tuple[str, Any]:
    """What makes an assistant message the script's own: its calls (ids, names) when it has any, else its text."""
    sent = tuple((c.get("id"), (c.get("function") or c).get("name")) for c in message.get("tool_calls") or ())
    return ("calls", sent) if sent else ("text", text_of(message))


def _turn_key(turn: Mapping[str, Any]) -> tuple[str, Any]:
    """A script turn's key, comparable with ``_message_key``: a message matches a turn when their keys are equal."""
    scripted = tuple((c["id"], c["name"]) for c in turn.get("tool_calls", ()))
    return ("calls", scripted) if scripted else ("text", turn.get("text") or "")


def summarize_entries(entries: Sequence[Mapping[str, Any]], script_length: int) -> dict[str, Any]:
    """Model calls per turn, turns asked beyond the script, scripted turns never asked, injected text,
    the roles under which the injection marker reached the model, and the roles of every request."""
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
        "requests": [" ".join(str(r) for r in e["roles"]) for e in entries],
    }
