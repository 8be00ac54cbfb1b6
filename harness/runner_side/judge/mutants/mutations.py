"""Plausible mutations of a framework's evidence cell, for the mutation check of the reasons
(``harness.runner_side.judge.mutants.score``). The mutations (the framework's side only, one leaf at a time):

- ``status``: a leaf holding a run status (the final status, a driver step's status, the final status after an
  interrupt) becomes each other status of the closed set; a step's status is held twice by the record (in
  ``step_statuses`` and in its step) and is changed in both, as a run that ended so would record it;
- ``refusal``: a refusal becomes each refusal reason that occurs in another scenario's evidence (any column), in its
  step too; and a refusal nobody gave is appended to ``refusals`` (in no step);
- ``count``: an integer count becomes one more and one less (never below 0); step indexes and arguments are not counts;
- ``turn``: a scripted turn asked once more or once less (``model.calls_per_turn``, a turn asked 0 times being
  absent), a turn put into or taken out of ``model.unused_turns`` and ``model.missing_turns``;
- ``moved``: in a dict of counts keyed by call id, one call's counts are moved to another call id of the scenario
  (added to what it had; for the non-read-only effects, only to another non-read-only call);
- ``flag``: a boolean flipped (``args_validated``, ``tool_entered``, ``equal``, ``resumable``, ``approval_survives``, which
  may also be null);
- ``resume_position``, ``provided_by``: each other value of its closed set (a resume position or none; framework, glue,
  none);
- ``call``: a call id (a pending call, a decision's call) becomes each other call id of the scenario.

The values a leaf is mutated to are the ones a run of the scenario could record; none is written per scenario or
per framework. The step and fact records a mutation does not name stay as they are, and so do the values the rules'
claims derive from them (``Case.implied``): a mutated observable the facts do not give is then left unexplained. A
mutation of a step's status or refusal edits the step too, so the facts, and the values claimed, change with it: the
reasons that vouch for the new value must state it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from harness.fixture_tools import FIXTURE_TOOLS
from harness.records import STATUSES
from harness.runner_side.judge.case import Case
from harness.runner_side.judge.values import ABSENT, Path
from harness.runner_side.observe.observables import NA, RESUME_POSITIONS
from harness.scenarios import Scenario

_INDEX_KEYS = {"step", "sub_step"}  # integers that say where, not how many
_NON_READ_ONLY = {"non_read_only_effects", "effects_before", "effects_after_resume", "effects_before_resume"}
_FLAGS = {"approval_survives"}  # booleans that may be null (no approval to survive)
_CLOSED_SETS: dict[str, tuple[Any, ...]] = {"resume_position": (*RESUME_POSITIONS, None), "provided_by": ("framework", "glue", "none")}


@dataclass(frozen=True)
class Mutation:
    """One plausible change of one framework cell: the new cell value, the step records when the record holds the
    leaf twice, and each changed location inside the cell with its new value (``ABSENT``, the judge's, for a removed key)."""

    kind: str
    label: str
    value: Any
    steps: list[dict[str, Any]] | None
    changed: tuple[tuple[Path, Any], ...]


@dataclass(frozen=True)
class Key:
    """A value stated by naming the key that holds it (an absent call, a call's counts as a whole)."""

    key: str


@dataclass(frozen=True)
class Flag:
    """A flipped boolean: stated when a reason that claims it says something else than before (a yes or no has no word of its own)."""

    value: bool


@dataclass(frozen=True)
class Never:
    """A turn asked for no more: stated by naming the turn, or saying ``never``."""

    turn: str


@dataclass(frozen=True)
class Toggled:
    """A turn put into or taken out of a list of turns: stated when the text names the turn another number of times."""

    turn: int


def mutations(name: str, case: Case, refusals: list[str]) -> Iterator[Mutation]:
    """Every plausible mutation of the framework's value of cell ``name`` (see the module's docstring); ``refusals``: the
    refusal reasons that occur in other scenarios' evidence."""
    value = case.framework.observables[name]
    if value == NA:
        return
    for where, leaf in _leaves(value):
        for kind, new, stated, steps in _leaf_values(name, where, leaf, case, refusals):
            yield Mutation(kind, f"{'.'.join((name, *where))} {leaf!r} -> {new!r}", _set(value, where, new), steps, ((where, stated),))
    if name == "refusals" and refusals:
        yield Mutation("refusal", f"refusals + {refusals[0]!r} (no step gave it)", [*value, refusals[0]], None, (((str(len(value)),), refusals[0]),))
    if name == "model":
        yield from _turn_mutations(value, case.scenario)
    yield from _moves(name, value, case.scenario)


_Value = tuple[str, Any, Any, "list[dict[str, Any]] | None"]
"""(kind, the leaf's new value, what a reason must say to state it, the step records when the record holds the leaf twice)."""


def _leaf_values(name: str, where: Path, leaf: Any, case: Case, refusals: list[str]) -> Iterator[_Value]:
    """The plausible other values of one leaf, by what the leaf holds (each kind once)."""
    steps = case.framework.steps
    if name == "refusals":
        refused = [i for i, s in enumerate(steps) if s.get("refusal")]
        k = int(where[0])
        yield from (("refusal", r, r, _step_edit(steps, refused[k], "refusal", r) if k < len(refused) else None) for r in refusals if r != leaf)
    elif isinstance(leaf, str) and leaf in STATUSES:
        yield from (("status", s, s, _step_edit(steps, int(where[0]), "status", s) if name == "step_statuses" else None) for s in STATUSES if s != leaf)
    elif isinstance(leaf, bool) or (leaf is None and where[-1] in _FLAGS):
        yield from (("flag", flag, Flag(flag), None) for flag in (True, False) if flag is not leaf)
    elif where[-1] in _CLOSED_SETS and leaf in _CLOSED_SETS[where[-1]]:
        yield from ((where[-1], other, other, None) for other in _CLOSED_SETS[where[-1]] if other != leaf)
    elif where[-1] == "call_id" and isinstance(leaf, str):
        yield from (("call", other, Key(other), None) for other in _call_ids(case.scenario) if other != leaf)
    elif isinstance(leaf, int) and where[-1] not in _INDEX_KEYS and "args" not in where and name != "model":
        yield from (("count", n, n, None) for n in (leaf + 1, leaf - 1) if n >= 0)


def _turn_mutations(model: dict[str, Any], scenario: Scenario) -> Iterator[Mutation]:
    turns = [str(t) for t in range(len(scenario.model_script))]
    calls = model["calls_per_turn"]
    for turn in sorted(set(turns) | set(calls), key=int):
        asked = calls.get(turn, 0)
        for n in (asked + 1, asked - 1):
            if n < 0:
                continue
            others = {t: c for t, c in calls.items() if t != turn} | ({turn: n} if n else {})
            new = dict(sorted(others.items(), key=lambda kv: int(kv[0])))
            yield Mutation("turn", f"model.calls_per_turn.{turn} {asked} -> {n}", {**model, "calls_per_turn": new}, None,
                           ((("calls_per_turn", turn), n if n else Never(turn)),))
    for key in ("unused_turns", "missing_turns"):
        listed = model[key]
        for turn in range(len(scenario.model_script) + (1 if key == "missing_turns" else 0)):
            toggled = sorted(set(listed) ^ {turn})
            yield Mutation("turn", f"model.{key} {'-' if turn in listed else '+'} {turn}", {**model, key: toggled}, None, (((key,), Toggled(turn)),))


def _moves(name: str, value: Any, scenario: Scenario) -> Iterator[Mutation]:
    """One call's counts moved to another call, in every dict of counts keyed by call id inside the cell."""
    ids = _call_ids(scenario)
    for where, node in _dicts(value):
        if not node or not set(node) <= set(ids) or not all(_counts(v) for v in node.values()):
            continue
        if name == "idempotent_replay" and not where:
            continue  # a replay cell per call id holds results, not counts
        targets = [c for c in ids if not where or where[-1] not in _NON_READ_ONLY or _non_read_only(scenario, c)]
        for source in sorted(node):
            for target in targets:
                if target == source:
                    continue
                moved = dict(node)
                counts = moved.pop(source)
                moved[target] = _add(moved.get(target), counts)
                moved = dict(sorted(moved.items()))
                yield Mutation("moved", f"{'.'.join((name, *where))}: {source}'s counts -> {target}", _set(value, where, moved), None,
                               (((*where, source), ABSENT), ((*where, target), moved[target])))


def _call_ids(scenario: Scenario) -> list[str]:
    return sorted({c["id"] for t in scenario.model_script for c in t.get("tool_calls", ())})


def _counts(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, dict) and bool(value) and all(isinstance(v, int) and not isinstance(v, bool) for v in value.values()))


def _add(a: Any, b: Any) -> Any:
    if a is None:
        return copy.deepcopy(b)
    if isinstance(b, dict):
        return {k: a.get(k, 0) + b.get(k, 0) for k in sorted(set(a) | set(b))}
    return a + b


def _non_read_only(scenario: Scenario, call_id: str) -> bool:
    tool = next((c["name"] for t in scenario.model_script for c in t.get("tool_calls", ()) if c["id"] == call_id), None)
    return tool not in FIXTURE_TOOLS or FIXTURE_TOOLS[tool].risk.value != "read_only"


def _leaves(value: Any, where: Path = ()) -> Iterator[tuple[Path, Any]]:
    if isinstance(value, dict):
        for key in sorted(value):
            yield from _leaves(value[key], (*where, str(key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, (*where, str(i)))
    else:
        yield where, value


def _dicts(value: Any, where: Path = ()) -> Iterator[tuple[Path, dict[str, Any]]]:
    if isinstance(value, dict):
        yield where, value
        for key in sorted(value):
            yield from _dicts(value[key], (*where, str(key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _dicts(item, (*where, str(i)))


def _set(value: Any, where: Path, new: Any) -> Any:
    """A copy of ``value`` with the node at ``where`` replaced (only the nodes on the way are copied)."""
    if not where:
        return new
    head, rest = where[0], where[1:]
    if isinstance(value, list):
        out = list(value)
        out[int(head)] = _set(value[int(head)], rest, new)
        return out
    return {**value, head: _set(value[head], rest, new)}


def _step_edit(steps: list[dict[str, Any]], index: int, key: str, new: Any) -> list[dict[str, Any]]:
    return [{**s, key: new} if i == index else s for i, s in enumerate(steps)]
