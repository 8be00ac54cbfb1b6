"""Do the reasons claim only what their facts show? A mutation check over the committed evidence.

For every not-equal cell of every column's evidence (of every measured record: one whose run errored has no reasons
to check), each framework leaf of the cell is mutated, one at a time,
to a *plausible* other value; the reasons are re-derived from the mutated record by the same rule table
(``harness.runner_side.reasons``), and the mutation is **caught** when the reasons no longer vouch for the old
value there. Precisely, the differing leaves of the mutated cell that hold the mutation (the leaf itself, or the
coarser leaf ``differing_paths`` reports when a list changed length or a key is absent on one side) are each:

- ``equal``: gone, the cell now equals the engine's there: there is no difference left to explain;
- ``unclaimed``: no re-derived reason claims it, so ``explain`` says "no rule explains this difference";
- ``stated``: every re-derived reason that claims it states the new value: compared word by word with the same
  rule's reason before the mutation (the one with the most claims in common; nothing when the rule gave no reason
  before), the words that changed include one that states the value. An integer is stated as a whole number (``2``,
  not the ``2`` of ``c2`` or ``2.5``) or as ``never`` / ``once`` / ``twice``; a status, a refusal, a resume position or a
  deduplicator as its text; a call id, an absent value or a call's counts as a whole as the call id; a turn asked no
  more as its number or ``never``; a turn put into or taken out of a list of turns as its number among the words put
  in or taken out. A flipped flag or a value become null has no word of its own: stated when the text changed at
  all. A value that merely occurs somewhere in a text is not stated: the mutation must have put it there;
- otherwise ``missed``: a reason still claims the leaf and says nothing of the new value, so a framework that did
  this would get the old explanation. That is the over-claim this check exists to find.

A mutation is caught when each of its leaves is. The mutations, to values a run of the scenario could record, are
``harness.runner_side.reason_mutations``'s.

Per rule, a mutation counts for every rule that claims one of its leaves before or after it, and is caught for
that rule when the rule's reasons no longer claim the leaf or state the new value. ``(no rule)`` counts the
mutations of leaves no reason claims before or after (an equal leaf of a not-equal cell made to differ): caught,
since ``explain`` then reports them; the summary also gives the score without them.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path as FilePath
from typing import Any

from harness.runner_side.reason_mutations import ABSENT, Flag, Key, Mutation, Never, Toggled, mutations
from harness.runner_side.reasons import Case, Reason, Run, claimed, differing_paths, reason_record, reasons
from harness.runner_side.rule_facts import Path, times
from harness.scenarios import Scenario

_REFERENCE = "handwritten"
_NOT_COLUMNS = {"handwritten.json", "availability.json", "evidence.schema.json"}


@dataclass
class Outcome:
    """What became of one mutation: caught or not, how each leaf fared, and the rules that claimed it before or after."""

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
        """rule -> (caught, mutations), for each rule that claimed a mutated leaf; ``(no rule)`` for leaves none claimed."""
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


def load(evidence: FilePath, scenarios: dict[str, Scenario]) -> Iterator[tuple[str, str, str, dict[str, Any], Case]]:
    """(column, mode, key, record, case) for every measured record of every column document, the case built as the
    comparison built it: the engine's run from ``handwritten.json``, the framework's observables from the cells."""
    modes = json.loads((evidence / f"{_REFERENCE}.json").read_text(encoding="utf-8"))["modes"]
    engines = {mode: body["scenarios"] for mode, body in modes.items()}  # a wire run is compared with the engine's wire run
    for path in sorted(evidence.glob("*.json")):
        if path.name in _NOT_COLUMNS:
            continue
        document = json.loads(path.read_text(encoding="utf-8"))
        mechanisms = {role: m["ref"] for role, m in document.get("mechanisms", {}).items()}
        for mode, body in sorted(document.get("modes", {}).items()):
            engine = engines.get("wire" if mode == "wire" else "contract", {})
            for key, record in sorted(body["scenarios"].items()):
                reference = engine.get(record["scenario"])
                if record["status"] != "ok" or reference is None or reference["status"] != "ok":
                    continue  # no reasons are derived for a run that errored
                observables = {name: c["framework"] for name, c in record["columns"].items()}
                yield document["framework"], mode, key, record, Case(
                    scenarios[record["scenario"]], Run(reference["actual"], reference["facts"], reference["steps"]),
                    Run(observables, record["facts"], record["steps"]), mechanisms, document.get("constants", {}), mode)


def refusal_pool(evidence: FilePath) -> dict[str, set[str]]:
    """Every refusal reason in the evidence, with the scenarios it occurs in."""
    pool: dict[str, set[str]] = defaultdict(set)
    for path in sorted(evidence.glob("*.json")):
        if path.name in ("availability.json", "evidence.schema.json"):
            continue
        for body in json.loads(path.read_text(encoding="utf-8")).get("modes", {}).values():
            for key, record in body["scenarios"].items():
                for step in record.get("steps", ()):
                    if step.get("refusal"):
                        pool[step["refusal"]].add(record.get("scenario", key))
    return pool


Derive = Callable[[Case], list[Reason]]


def check(evidence: FilePath, scenarios: dict[str, Scenario], derive: Derive = reasons) -> Report:
    """Mutate every framework leaf of every not-equal cell of the evidence and see which mutations are caught, the
    reasons derived by ``derive`` (the rule table; a test passes another)."""
    pool = refusal_pool(evidence)
    outcomes, stale = [], []
    for column, mode, key, record, case in load(evidence, scenarios):
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


def judge(where: str, name: str, case: Case, before: list[Reason], mutation: Mutation, derive: Derive = reasons) -> Outcome:
    """Apply one mutation of cell ``name`` to the case, re-derive the reasons and say whether it is caught (``before``:
    the reasons of the case as it is)."""
    framework = Run({**case.framework.observables, name: mutation.value}, case.framework.facts, mutation.steps or case.framework.steps)
    after = derive(Case(case.scenario, case.engine, framework, case.mechanisms, case.constants, case.mode))
    engine_value = case.engine.observables[name]
    differing = [(name, *p) for p in differing_paths(engine_value, mutation.value)]
    how: list[str] = []
    rules: dict[str, bool] = {}
    for location, new in mutation.changed:
        target = (name, *location)
        leaves = [p for p in differing if p[: len(target)] == target or target[: len(p)] == p]
        if not leaves:
            how.append("equal")
            continue
        for leaf in leaves:
            said = _stated_value(leaf, target, new, mutation.value, name)
            was = {r.rule for r in before if claimed(leaf, r.claims)}
            now = [r for r in after if claimed(leaf, r.claims)]
            verdict = dict.fromkeys(was, True)  # a rule that let go of the leaf: caught for it
            for rule in {r.rule for r in now}:
                verdict[rule] = all(_states(r, said, before) for r in now if r.rule == rule)
            for rule, ok in verdict.items():
                rules[rule] = rules.get(rule, True) and ok
            if not now:
                how.append("unclaimed")
            elif all(verdict[r.rule] for r in now):
                how.append("stated")
            else:
                how.append("missed")
    return Outcome(where, mutation.kind, mutation.label, "missed" not in how, tuple(how), rules)


def _stated_value(leaf: Path, target: Path, new: Any, cell: Any, name: str) -> Any:
    """What a reason must mention to state the mutation at ``leaf``: the scalar there, the mutated scalar when the
    differing leaf is coarser than the mutation, or the key (a call id) of an absent value or a whole dict."""
    if len(leaf) <= len(target):
        return Key(target[-1]) if new is ABSENT or isinstance(new, dict) else new
    node: Any = cell
    for key in leaf[1:]:
        node = node.get(key, ABSENT) if isinstance(node, dict) else node[int(key)] if isinstance(node, list) and int(key) < len(node) else ABSENT
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
    rule's reason with the most claims in common; none when the rule gave no reason before), the words that changed
    include one that states the value (for a turn taken out of a list, the words taken out). A flipped boolean or a
    value become null has no word of its own: stated when the text changed at all."""
    same_rule = [r for r in before if r.rule == reason.rule]
    mine = set(reason.claims)
    counterpart = max(same_rule, key=lambda r: len(mine & set(r.claims)), default=None)
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
    claimed_ = [o for o in report.outcomes if o.rules]
    lines = [f"reasons caught {report.caught} of {len(report.outcomes)} mutations: {shown(report.score)}",
             f"  of which a reason claimed the mutated leaf before or after the mutation: {sum(o.caught for o in claimed_)} of {len(claimed_)}",
             "per rule (caught / mutations of a leaf the rule claims before or after):"]
    lines += [f"  {rule:30} {caught:5} / {n:<5} {shown(100.0 * caught / n):>7}" for rule, (caught, n) in report.by_rule().items()]
    lines.append("per kind of mutation:")
    lines += [f"  {kind:30} {caught:5} / {n:<5} {shown(100.0 * caught / n):>7}" for kind, (caught, n) in report.by_kind().items()]
    for o in [o for o in report.outcomes if not o.caught][:missed]:
        lines.append(f"  missed: {o.where}: {o.label} (claimed without stating it by {', '.join(r for r, ok in sorted(o.rules.items()) if not ok)})")
    return "\n".join(lines)
