"""Typed tools: a ``ToolSpec`` per tool and the ``ToolRegistry`` the engine dispatches through."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .schema import ArgsValidator


class RiskClass(str, Enum):
    """What a tool may do to the world, which decides the policy applied before it runs."""

    READ_ONLY = "read_only"
    REVERSIBLE_WRITE = "reversible_write"
    HIGH_RISK = "high_risk"
    ALWAYS_DENY = "always_deny"


@dataclass(frozen=True)
class ToolContext:
    """What an executor learns about the call it serves."""

    session_id: str
    call_id: str
    idempotency_key: str | None
    attempt: int


Executor = Callable[[Any, ToolContext], Any]
"""An executor takes validated arguments and the call context and returns a JSON value.

Raising ``TimeoutError`` means "entered, outcome unknown"; any other exception means the
tool failed before any side effect, so a retry may run.
"""


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, what the model is told, its JSON input schema, its risk class and its executor."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    risk: RiskClass
    executor: Executor = field(compare=False)
    acts_for: str | None = None
    """The argument naming the user the tool acts for, if it acts for one: the user comes from the session,
    never from the arguments (an argument naming another user is refused)."""


def as_session_user(spec: ToolSpec, args: Any, user: str | None) -> Any | None:
    """The arguments a tool that acts for a user runs with: the session's user in ``spec.acts_for``. None when the
    arguments name another user (or the session has none): the call must be refused, not run for whoever was named."""
    if spec.acts_for is None:
        return args
    named = args.get(spec.acts_for)
    if user is None or (named is not None and named != user):
        return None
    return {**args, spec.acts_for: user}


class UnknownTool(KeyError):
    """A name that is not in the registry."""


class ToolRegistry:
    """The closed set of tools a run may use, each with its validator compiled once."""

    def __init__(self, specs: Iterable[ToolSpec]) -> None:
        self._specs: dict[str, ToolSpec] = {}
        self._validators: dict[str, ArgsValidator] = {}
        for spec in specs:
            if spec.name in self._specs:
                raise ValueError(f"duplicate tool name: {spec.name}")
            self._specs[spec.name] = spec
            self._validators[spec.name] = ArgsValidator(spec.input_schema)
        self._openai_tools = [
            {
                "type": "function",
                "function": {"name": s.name, "description": s.description, "parameters": dict(s.input_schema)},
            }
            for s in self._specs.values()
        ]

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._specs)

    def get(self, name: str) -> ToolSpec:
        try:
            return self._specs[name]
        except KeyError:
            raise UnknownTool(name) from None

    def validator(self, name: str) -> ArgsValidator:
        return self._validators[name]

    def openai_tools(self) -> list[dict[str, Any]]:
        """The OpenAI-style ``tools`` list a model is given (a fresh deep copy each time)."""
        return copy.deepcopy(self._openai_tools)
