"""Do the reasons vouch only for what their facts show? A mutation check over the committed evidence.

For every not-equal cell of every column's evidence (of every measured record: one whose run errored has no reasons
to check), each framework leaf of the cell is mutated, one at a time, to a *plausible* other value
(``harness.runner_side.judge.mutants.mutations``); the case is built again with the mutated cell (and, for a mutation of a
step's status or refusal, the mutated step records, so the facts and ``Case.implied`` change with it), the reasons are
re-derived by the same rule table (``harness.runner_side.judge.reasons``), and ``explain``'s verdict is read at the
mutated leaf. The differing leaves of the mutated cell that hold the mutation (the leaf itself, or the coarser leaf
``differing_paths`` reports when a list changed length or a key is absent on one side; a leaf below a mutated call's
counts that kept its value is not one: it differed before, and its explanation is not the mutation's) are each:

- ``equal``: none, the mutated values now equal the engine's there: there is no difference left to explain;
- ``unexplained``: no re-derived reason has a claim that vouches for the new value there (``explain.vouches``: the
  claim's value, from the facts, is the value observed), so ``explain`` says "no rule explains this difference";
- ``stated``: every re-derived reason with a claim that vouches for the new value states it: compared word by word with
  the same rule's reason before the mutation (the one with the most claimed paths in common; nothing when the rule gave
  no reason before), the words that changed include one that states the value. An integer is stated as a whole number
  (``2``, not the ``2`` of ``c2`` or ``2.5``) or as ``never`` / ``once`` / ``twice``; a status, a refusal, a resume
  position or a deduplicator as its text; a call id, an absent value or a call's counts as a whole as the call id; a
  turn asked no more as its number or ``never``; a turn put into or taken out of a list of turns as its number among the
  words put in or taken out. A flipped flag or a value become null has no word of its own: stated when the text changed
  at all. A value that merely occurs somewhere in a text is not stated: the mutation must have put it there;
- otherwise ``missed``: a reason still vouches for the leaf and says nothing of the new value, so a framework that did
  this would get the old explanation, marked explained. That is the over-claim this check exists to find (a claim whose
  value is the observable's own rather than the facts', or a leaf ``Case.implied`` takes as observed).

A mutation is caught when each of its leaves is.

Per rule, a mutation counts for every rule that vouches for one of its leaves before the mutation (for the value the
leaf held) or after it (for the new value), and is caught for that rule when the rule no longer vouches for the leaf or
its reasons state the new value. ``(no rule)`` counts the mutations of leaves no reason vouches for before or after (an
equal leaf of a not-equal cell made to differ): caught, since ``explain`` then reports them; the summary also gives the
score without them.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path as FilePath
from typing import Any

from harness.columns import REFERENCE
from harness.modes import compared_with
from harness.runner_side.judge import ABSENT, Case, Reason, case_of, differing_paths, engine_of, reason_record, reasons, value_at
from harness.runner_side.judge.explain import vouches
from harness.runner_side.judge.facts import times
from harness.runner_side.judge.mutants.mutations import Flag, Key, Mutation, Never, Toggled, mutations
from harness.runner_side.judge.values import Path
from harness.scenarios import Scenario

Documents = dict[str, dict[str, Any]]
"""Every evidence document that holds runs (``modes``), by its file's stem (a column's name), each parsed once."""


@dataclass
class Outcome:
    """What became of one mutation: caught or not, how each leaf fared, and the rules that vouched for it before or after."""

    where: str
    kind: str
    label: str
    caught: bool
    how: tuple[str, ...]
    rules: dict[str, bool] = field(default_factory=dict)  # rule -> caught for that rule


@dataclass
class Report:
    """Every outcome, and the records whose stored reasons are not what the rules derive (stale evidence)."""

    outcomes: list[Outcome]
    stale: list[str]

    @property
    def caught(self) -> int:
        return sum(o.caught for o in self.outcomes)

    @property
    def score(self) -> float:
        return 100.0 * self.caught / len(self.outcomes) if self.outcomes else 100.0

    def by_rule(self) -> dict[str, tuple[int, int]]:
        """rule -> (caught, mutations), for each rule that vouched for a mutated leaf; ``(no rule)`` for leaves none did."""
        out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for o in self.outcomes:
            for rule, ok in (o.rules or {"(no rule)": o.caught}).items():
                out[rule][0] += ok
                out[rule][1] += 1
        return {rule: (c, n) for rule, (c, n) in sorted(out.items())}

    def by_kind(self) -> dict[str, tuple[int, int]]:
        out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for o in self.outcomes:
            out[o.kind][0] += o.caught
            out[o.kind][1] += 1
        return {kind: (c, n) for kind, (c, n) in sorted(out.items())}


def documents(evidence: FilePath) -> Documents:
    """Every document of ``evidence`` that holds runs (the reference's and the columns'), each parsed once; the
    availability, the schema and the timings hold none."""
    found = {}
    for path in sorted(evidence.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(document, dict) and "framework" in document and "modes" in document:
            found[path.stem] = document
    return found


def load(docs: Documents, scenarios: dict[str, Scenario]) -> Iterator[tuple[str, str, str, dict[str, Any], Case]]:
    """(column, mode, key, record, case) for every measured record of every column document, the case built as the
    comparison builds it (``case_of``) against the engine's run its mode is compared with (``compared_with``)."""
    for column, document in sorted(docs.items()):
        if column == REFERENCE:
            continue
        for mode, body in sorted(document["modes"].items()):
            for key, record in sorted(body["scenarios"].items()):
                engine = engine_of(docs.get(compared_with(mode)[0], {}), mode, record)
                if record["status"] != "ok" or engine is None or engine["status"] != "ok":
                    continue  # no reasons are derived for a run that errored
                yield column, mode, key, record, case_of(scenarios[record["scenario"]], engine, record, document, mode)


def refusal_pool(docs: Documents) -> dict[str, set[str]]:
    """Every refusal reason in the evidence (the reference's runs too), with the scenarios it occurs in."""
    pool: dict[str, set[str]] = defaultdict(set)
    for document in docs.values():
        for body in document["modes"].values():
            for key, record in body["scenarios"].items():
                for step in record.get("steps", ()):
                    if step.get("refusal"):
                        pool[step["refusal"]].add(record.get("scenario", key))
    return pool


Derive = Callable[[Case], list[Reason]]


def check(evidence: FilePath, scenarios: dict[str, Scenario], derive: Derive = reasons) -> Report:
    """Mutate every framework leaf of every not-equal cell of the evidence and see which mutations are caught, the
    reasons derived by ``derive`` (the rule table; a test passes another)."""
    docs = documents(evidence)
    pool = refusal_pool(docs)
    outcomes, stale = [], []
    for column, mode, key, record, case in load(docs, scenarios):
        found = derive(case)
        if [reason_record(r) for r in dict.fromkeys(found)] != record["reasons"]:
            stale.append(f"{column}/{mode}/{key}")
        others = sorted(r for r, where in pool.items() if where - {case.scenario.id})
        for name, cell in record["columns"].items():
            if cell["equal"] is not False:
                continue
            for mutation in mutations(name, case, others):
                outcomes.append(judge(f"{column}/{mode}/{key}/{name}", name, case, found, mutation, derive))
    return Report(outcomes, stale)


def mutated(case: Case, name: str, mutation: Mutation) -> Case:
    """The case with cell ``name`` of the framework's run mutated, and its step records when the mutation edits them
    (the facts then imply other values: ``Case.implied`` is computed again for the new case)."""
    run = dataclasses.replace(case.framework, observables={**case.framework.observables, name: mutation.value},
                              steps=mutation.steps if mutation.steps is not None else case.framework.steps)
    return dataclasses.replace(case, framework=run)


def judge(where: str, name: str, case: Case, before: list[Reason], mutation: Mutation, derive: Derive = reasons) -> Outcome:
    """Apply one mutation of cell ``name`` to the case, re-derive the reasons and say whether it is caught (``before``:
    the reasons of the case as it is)."""
    after = derive(mutated(case, name, mutation))
    old_value = case.framework.observables[name]
    differing = [(name, *p) for p in differing_paths(case.engine.observables[name], mutation.value)]
    how: list[str] = []
    rules: dict[str, bool] = {}
    for location, new in mutation.changed:
        target = (name, *location)
        leaves = [p for p in differing if (p[: len(target)] == target or target[: len(p)] == p) and _changes(old_value, mutation.value, p[1:])]
        if not leaves:
            how.append("equal")
            continue
        for leaf in leaves:
            said = _stated_value(leaf, target, new, mutation.value)
            was = {r.rule for r in _vouching(before, leaf, value_at(old_value, leaf[1:]))}
            now = _vouching(after, leaf, value_at(mutation.value, leaf[1:]))
            verdict = dict.fromkeys(was, True)  # a rule that no longer vouches for the leaf: caught for it
            for rule in {r.rule for r in now}:
                verdict[rule] = all(_states(r, said, before) for r in now if r.rule == rule)
            for rule, ok in verdict.items():
                rules[rule] = rules.get(rule, True) and ok
            if not now:
                how.append("unexplained")
            elif all(verdict[r.rule] for r in now):
                how.append("stated")
            else:
                how.append("missed")
    return Outcome(where, mutation.kind, mutation.label, "missed" not in how, tuple(how), rules)


def _changes(old: Any, new: Any, path: Path) -> bool:
    """Whether the node at ``path`` differs between the cell before and after the mutation (``True`` is not ``1``)."""
    a, b = value_at(old, path), value_at(new, path)
    return bool(a != b) or type(a) is not type(b)


def _vouching(found: list[Reason], leaf: Path, observed: Any) -> list[Reason]:
    """The reasons with a claim that vouches for ``observed`` at ``leaf``: those ``explain`` counts for it."""
    return [r for r in found if any(vouches(c, leaf, observed) for c in r.claims)]


def _stated_value(leaf: Path, target: Path, new: Any, cell: Any) -> Any:
    """What a reason must mention to state the mutation at ``leaf``: the scalar there, the mutated scalar when the
    differing leaf is coarser than the mutation, or the key (a call id) of an absent value or a whole dict."""
    if len(leaf) <= len(target):
        return Key(target[-1]) if new is ABSENT or isinstance(new, dict) else new
    node = value_at(cell, leaf[1:])
    return Key(leaf[-1]) if node is ABSENT or isinstance(node, dict | list) else node


def _words(value: Any) -> list[str]:
    """The words that state ``value``: an integer as a number (or never / once / twice), a key (a call id, a turn) as
    itself, a turn asked no more as its number or ``never``; a status or a refusal as its text."""
    if isinstance(value, Key):
        return [value.key]
    if isinstance(value, Never):
        return [value.turn, "never"]
    if isinstance(value, Toggled):
        return [str(value.turn)]
    if isinstance(value, int):
        return [str(value), *([times(value)] if value < 3 else [])]
    return [str(value)]


def _occurrences(text: str, word: str) -> list[tuple[int, int]]:
    """Where ``word`` occurs as a whole word or number (not the ``2`` of ``c2``, ``2.5`` or ``step_2``)."""
    return [m.span() for m in re.finditer(rf"(?<![\w.]){re.escape(word)}(?![\w]|\.\d)", text)]


def _changed(old: str, new: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The character spans of the words that differ between two texts: in ``old`` (taken out or replaced) and in ``new``
    (put in or replacing)."""
    a, b = [m.span() for m in re.finditer(r"\S+", old)], [m.span() for m in re.finditer(r"\S+", new)]
    matcher = difflib.SequenceMatcher(None, [old[i:j] for i, j in a], [new[i:j] for i, j in b], autojunk=False)
    gone, put = [], []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            gone += [(a[i1][0], a[i2 - 1][1])] if i2 > i1 else []
            put += [(b[j1][0], b[j2 - 1][1])] if j2 > j1 else []
    return gone, put


def _states(reason: Reason, value: Any, before: list[Reason]) -> bool:
    """Whether ``reason`` states ``value``: compared word by word with its counterpart before the mutation (the same
    rule's reason with the most claimed paths in common, as a mutation changes the values claimed; none when the rule
    gave no reason before), the words that changed include one that states the value (for a turn taken out of a list,
    the words taken out). A flipped boolean or a value become null has no word of its own: stated when the text changed
    at all."""
    same_rule = [r for r in before if r.rule == reason.rule]
    mine = {c.path for c in reason.claims}
    counterpart = max(same_rule, key=lambda r: len(mine & {c.path for c in r.claims}), default=None)
    old = counterpart.text if counterpart else ""
    if isinstance(value, Flag) or value is None:
        return old != reason.text
    gone, put = _changed(old, reason.text)
    texts = [(reason.text, put), *([(old, gone)] if isinstance(value, Toggled) else [])]
    return any(i < y and x < j for text, spans in texts for word in _words(value) for i, j in _occurrences(text, word) for x, y in spans)


README_SCORE = re.compile(r"`scripts/check_reasons\.py` catches \*\*(\d+(?:\.\d)?) %\*\*")
"""How the README states the score CI must not fall below."""


def stated_score(readme: str) -> float | None:
    """The score the README states (``README_SCORE``), or ``None``."""
    found = README_SCORE.search(readme)
    return float(found.group(1)) if found else None


def shown(score: float) -> str:
    """A score to one decimal, rounded down (99.96 % is not 100.0 %)."""
    return f"{math.floor(score * 10) / 10:.1f} %"


def summary(report: Report, missed: int = 0) -> str:
    """The score, per rule and per kind of mutation, and the first ``missed`` mutations not caught."""
    vouched = [o for o in report.outcomes if o.rules]
    lines = [f"reasons caught {report.caught} of {len(report.outcomes)} mutations: {shown(report.score)}",
             f"  of which a reason vouched for the mutated leaf before or after the mutation: {sum(o.caught for o in vouched)} of {len(vouched)}",
             "per rule (caught / mutations of a leaf the rule vouches for before or after):"]
    lines += [f"  {rule:30} {caught:5} / {n:<5} {shown(100.0 * caught / n):>7}" for rule, (caught, n) in report.by_rule().items()]
    lines.append("per kind of mutation:")
    lines += [f"  {kind:30} {caught:5} / {n:<5} {shown(100.0 * caught / n):>7}" for kind, (caught, n) in report.by_kind().items()]
    for o in [o for o in report.outcomes if not o.caught][:missed]:
        lines.append(f"  missed: {o.where}: {o.label} (vouched for without stating it by {', '.join(r for r, ok in sorted(o.rules.items()) if not ok)})")
    return "\n".join(lines)
