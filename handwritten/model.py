"""The model the engine talks to: messages and tools in, final text or tool calls out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class ToolCall:
    """One proposed call. ``arguments`` is parsed JSON, or the raw JSON text some models send."""

    id: str
    name: str
    arguments: Any


@dataclass(frozen=True)
class ModelReply:
    """A model turn: tool calls (possibly several in parallel) or, when there are none, final ``text``."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()


class Model(Protocol):
    """Messages are OpenAI-style chat dicts (role, content, tool_calls, tool_call_id).

    The engine hands over its own transcript: a model must read it, never change it
    (copy first if an adapter needs to rewrite messages)."""

    def complete(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> ModelReply: ...


class ModelUnavailable(Exception):
    """The model could not be reached within the model's own attempt budget (see ``handwritten.wire_model``).

    The engine ends the run ``model_unavailable`` with ``reason``; its checkpoint stays at the last completed turn,
    so ``resume`` asks again with a fresh budget. ``attempts`` is what each attempt met (an HTTP status, ``timeout``,
    ``bad_body``, or ``connection (<cause>)`` for a connection dropped before or during the answer)."""

    def __init__(self, reason: str, attempts: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.attempts = attempts
