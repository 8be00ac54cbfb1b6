"""The rule registry: a rule is one decorated function, and every table about rules is read from here.

::

    @rule("tool_error_not_retried", "Does not retry a tool that failed before its effect", stage="tool_errors")
    def tool_error_not_retried(case: Case) -> Iterator[Reason]: ...

A function that yields several ids declares each, one decorator per id, in the order FINDINGS.md lists them.
``stage`` is the contract stage (``STAGES``) whose scorecard row a finding of the rule breaks, or ``None``, stated on
purpose; ``consequence=True`` marks a rule that says what followed from another behaviour (a run that ended early
ran less): it explains cells, and FINDINGS.md does not list it as a finding. The rules of ``judge/rules/wire.py`` are
the wire mode's own (``wire_rules``). A rule of the crash sweep (``@sweep_rule``, ``judge/rules/crashes.py``) reads one
column and mode's rows of ``evidence/sweep.json``, not a cell: it shares the table (its id is unique among all, its
stage names the contract's stage it concerns) but never runs on a case (``sweep_rules``).

At import the registry refuses a duplicate id, a rule without a stage decision or with an unknown stage, and a
rule function whose code builds a ``Reason`` with a literal id it did not declare; ``reasons`` refuses, when it
runs, a reason whose id its function did not declare. Rules run in the order they are defined (the modules of
``judge/rules`` in the order that package imports them): the order of a record's reasons and of a cell's text.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from harness.runner_side.judge.case import Case
from harness.runner_side.judge.values import Reason

RuleFunction = Callable[[Case], Iterator[Reason]]

STAGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "schema": ("Schema before execution", ("validation_before_execution", "invalid_args_corrected")),
    "policy": ("Policy (always deny, the session's user)", ("always_deny", "session_identity")),
    "approval": ("Approval: asked where the contract asks, bound to call, arguments, session, expiry", ("high_risk_before_approval", "unbound_approval_token")),
    "checkpoint": ("Checkpoint before every side effect, resume where it stopped", ("crash_resume", "side_effect_before_checkpoint")),
    "idempotency": ("Idempotency: no side effect twice, a repeat answered", ("duplicate_event",)),
    "tool_errors": ("Bounded retries, errors as the tool's result", ("retry_before_effect", "tool_error_as_message")),
    "uncertain": ("Uncertain outcome stops for reconciliation", ("uncertain_after_timeout",)),
    "step_bound": ("Step bound", ("step_bound",)),
    "model_failures": ("Model endpoint failures", ("model_retry", "model_unavailable")),
}
"""The contract's stages: stage -> (its label, the ``covers`` tags of the scenarios that exercise it)."""


@dataclass(frozen=True)
class Rule:
    """One rule id: the behaviour it names (a heading of FINDINGS.md), its stage (``None``: no stage's row), whether it
    is a consequence of another behaviour, and the function that yields it (``module:qualname``)."""

    id: str
    title: str
    stage: str | None
    consequence: bool
    function: str

    @property
    def wire(self) -> bool:
        """Whether it is one of the wire mode's own rules (``judge/rules/wire.py``)."""
        return self.function.startswith(f"{__package__}.rules.wire:")

    @property
    def mcp(self) -> bool:
        """Whether it is one of the mcp mode's own rules (``judge/rules/mcp.py``: what the runner's MCP server saw)."""
        return self.function.startswith(f"{__package__}.rules.mcp:")


_RULES: dict[str, Rule] = {}
_FUNCTIONS: list[RuleFunction] = []
_DECLARED: dict[RuleFunction, tuple[str, ...]] = {}


class RegistryError(Exception):
    """A rule declared wrongly: found at import, before any case is judged."""


class UndeclaredRule(RegistryError):
    """A rule function yielded an id it did not declare: found when it runs."""


def rule(rule_id: str, title: str, *, stage: str | None, consequence: bool = False) -> Callable[[RuleFunction], RuleFunction]:
    """Declare that the decorated function yields reasons with id ``rule_id`` (see the module's docstring)."""
    if stage is not None and stage not in STAGES:
        raise RegistryError(f"rule {rule_id!r}: unknown stage {stage!r}; known: {', '.join(STAGES)} (or None)")
    if rule_id in _RULES or rule_id in _SWEEP:
        raise RegistryError(f"rule {rule_id!r} is declared twice ({_RULES[rule_id].function if rule_id in _RULES else 'a sweep rule'})")

    def register(function: RuleFunction) -> RuleFunction:
        where = f"{function.__module__}:{function.__qualname__}"
        _RULES[rule_id] = Rule(rule_id, title, stage, consequence, where)
        if function not in _DECLARED:
            _FUNCTIONS.append(function)
        _DECLARED[function] = (rule_id, *_DECLARED.get(function, ()))  # decorators apply bottom-up: the top one is first
        return function

    return register


_SWEEP: dict[str, tuple[Rule, Callable[[Any], Iterator[Any]]]] = {}


def sweep_rule(rule_id: str, title: str, *, stage: str | None) -> Callable[[Callable[[Any], Iterator[Any]]], Callable[[Any], Iterator[Any]]]:
    """Declare a rule of the crash sweep: the decorated function reads one column and mode's rows of the sweep and yields
    its findings (``judge/rules/crashes.py``); the id shares the one table with the cells' rules."""
    if stage is not None and stage not in STAGES:
        raise RegistryError(f"rule {rule_id!r}: unknown stage {stage!r}; known: {', '.join(STAGES)} (or None)")
    if rule_id in _RULES or rule_id in _SWEEP:
        raise RegistryError(f"rule {rule_id!r} is declared twice")

    def register(function: Callable[[Any], Iterator[Any]]) -> Callable[[Any], Iterator[Any]]:
        _SWEEP[rule_id] = (Rule(rule_id, title, stage, False, f"{function.__module__}:{function.__qualname__}"), function)
        return function

    return register


def sweep_rules() -> dict[str, tuple[Rule, Callable[[Any], Iterator[Any]]]]:
    """Every rule of the crash sweep, in the order declared: id -> (the rule, its function)."""
    return dict(_SWEEP)


def check_literal_ids(module: Any) -> None:
    """Refuse a module whose rule functions build a ``Reason`` with a literal id they did not declare (an id built in a
    helper outside a rule function must be declared by a rule of the module)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(module)))
    functions = {f.__name__: ids for f, ids in _DECLARED.items() if f.__module__ == module.__name__}
    every = {i for ids in functions.values() for i in ids}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        allowed = set(functions.get(node.name, every))
        for literal in _reason_ids(node):
            if literal not in allowed:
                raise RegistryError(f"{module.__name__}:{node.name} yields rule {literal!r}, which it does not declare with @rule")


def _reason_ids(function: ast.FunctionDef) -> Iterator[str]:
    """The literal ids (a string, or either string of a conditional) of every ``Reason(...)`` built in ``function``."""
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Reason" and node.args:
            first = node.args[0]
            for value in (first.body, first.orelse) if isinstance(first, ast.IfExp) else (first,):
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    yield value.value


def functions() -> tuple[RuleFunction, ...]:
    """Every rule function, in the order the rules run."""
    return tuple(_FUNCTIONS)


def declared(function: RuleFunction) -> tuple[str, ...]:
    """The ids ``function`` declared."""
    return _DECLARED[function]


def rules() -> dict[str, Rule]:
    """Every rule id, in the order FINDINGS.md lists the behaviours: by function, each function's ids top-down."""
    return {i: _RULES[i] for f in _FUNCTIONS for i in _DECLARED[f]}


def titles() -> dict[str, str]:
    """rule id -> the behaviour it names."""
    return {i: r.title for i, r in rules().items()}


def consequences() -> frozenset[str]:
    """The ids of the rules that describe what followed from another behaviour."""
    return frozenset(i for i, r in rules().items() if r.consequence)


def wire_rules() -> frozenset[str]:
    """The ids of the wire mode's own rules."""
    return frozenset(i for i, r in rules().items() if r.wire)


def mcp_rules() -> frozenset[str]:
    """The ids of the mcp mode's own rules."""
    return frozenset(i for i, r in rules().items() if r.mcp)


def stage_rules(stage: str) -> tuple[str, ...]:
    """The ids of the rules whose findings break ``stage``, in the registry's order."""
    return tuple(i for i, r in rules().items() if r.stage == stage)
