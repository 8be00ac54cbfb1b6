"""The rule table of "What changed between pins": one decorated function per kind of change, read from two pins'
evidence (``diff.Pair``), the way ``harness.runner_side.judge`` reads a case::

    @pin_rule("default_moved", "A default that moved")
    def default_moved(pair: Pair) -> Iterator[Change]: ...

- ``default_moved``: a constant read in each pinned environment (``constants``) whose value differs; the cells it
  concerns are those that differ between the pins where a reason of a pin quotes the constant's reference there
  (a reason names a constant only by quoting its ``ref``), so none is tied to it by guess;
- ``behaviour_appeared``: a rule of the judge explains a cell at the newer pin and did not at the older one (same
  mode, scenario and observable); ``behaviour_went``: the other way round. Consequences (a rule that says what
  followed from another behaviour) are left out, as FINDINGS.md leaves them out of its findings.

A change is linked to a probe only when one runs at both pins (``probes_of`` for each column) and prints a value that
differs between the pins in one of the change's cells (or a value holding one), or, for a default that moved, prints
that default as it measures it (``constants.<name>``); else it has none yet. A ``defaults``
probe stands for a ``wire`` cell of any observable but ``wire`` (the model's transport is all that differs).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from harness.columns import Column
from harness.runner_side.judge import consequences, titles
from harness.runner_side.publish.pins.diff import CellChange, Pair, cell_changes, constants, mode_order
from harness.runner_side.publish.probes import CONSTANTS, Probe, probes_of

APPEARED, WENT = "behaviour_appeared", "behaviour_went"


@dataclass(frozen=True)
class Change:
    """One change between two pins: the rule that found it, the pair, what changed (a constant's name, or the id of
    the judge's rule that appeared or went), the mode (``None`` for a constant) and the cells it concerns; a
    constant's ``{ref, value}`` at each pin (``None`` where a pin did not read it)."""

    rule: str
    pair: Pair
    subject: str
    mode: str | None
    cells: tuple[CellChange, ...]
    older: Any = None
    newer: Any = None


PinRuleFunction = Callable[[Pair], Iterator[Change]]


@dataclass(frozen=True)
class PinRule:
    """One kind of change: its id, the heading it gives (a title), and the function that finds it."""

    id: str
    title: str
    function: PinRuleFunction


_RULES: dict[str, PinRule] = {}


def pin_rule(rule_id: str, title: str) -> Callable[[PinRuleFunction], PinRuleFunction]:
    """Declare that the decorated function yields changes with id ``rule_id`` (one decorator per id it yields)."""
    if rule_id in _RULES:
        raise ValueError(f"pin rule {rule_id!r} is declared twice")

    def register(function: PinRuleFunction) -> PinRuleFunction:
        _RULES[rule_id] = PinRule(rule_id, title, function)
        return function

    return register


def pin_titles() -> dict[str, str]:
    """pin rule id -> its heading, in the order the rules are defined."""
    return {i: r.title for i, r in _RULES.items()}


def changes(pair: Pair) -> list[Change]:
    """Every change between the two pins, rule by rule in their order; a change whose id its function does not declare
    is refused."""
    found, done = [], set()
    for rule in _RULES.values():
        if rule.function in done:
            continue
        done.add(rule.function)
        declared = {i for i, r in _RULES.items() if r.function is rule.function}
        for change in rule.function(pair):
            if change.rule not in declared:
                raise ValueError(f"{rule.function.__qualname__} yielded pin rule {change.rule!r}, which it does not declare")
            found.append(change)
    return sorted(found, key=lambda c: list(_RULES).index(c.rule))


@pin_rule("default_moved", "A default that moved")
def default_moved(pair: Pair) -> Iterator[Change]:
    """A constant whose value (or reference) differs between the pins, with the differing cells a reason quotes it in."""
    cells = cell_changes(pair)
    for moved in constants(pair):
        quoted = tuple(c for c in cells if c.leaves and _quotes(c, moved.older, moved.newer))
        yield Change("default_moved", pair, moved.name, None, quoted, moved.older, moved.newer)


def _quotes(cell: CellChange, older: dict[str, Any] | None, newer: dict[str, Any] | None) -> bool:
    """Whether a reason behind the cell at either pin quotes the constant's reference at that pin."""
    return any(constant and constant["ref"] in r["text"] for side, constant in (("older", older), ("newer", newer))
               for rule in cell.rules(side) for r in cell.reasons(side, rule))


@pin_rule(WENT, "A behaviour that went")
@pin_rule(APPEARED, "A behaviour that appeared")  # decorators apply bottom-up: this one is registered first
def behaviours(pair: Pair) -> Iterator[Change]:
    """Per judge rule and mode: the cells it explains at the newer pin and not at the older (appeared), or the other
    way round (went), consequences aside."""
    after = consequences()
    for rule_id, here, there in ((APPEARED, "newer", "older"), (WENT, "older", "newer")):
        grouped: dict[tuple[str, str], list[CellChange]] = defaultdict(list)
        for cell in cell_changes(pair):
            for rule in sorted(set(cell.rules(here)) - set(cell.rules(there)) - after):
                grouped[(rule, cell.mode)].append(cell)
        order = list(titles())
        for (rule, mode), cells in sorted(grouped.items(), key=lambda item: (order.index(item[0][0]) if item[0][0] in order else len(order), item[0][0],
                                                                             mode_order(item[0][1]))):
            yield Change(rule_id, pair, rule, mode, tuple(cells))


def probes_behind(change: Change, probes: list[Probe], registry: dict[str, Column]) -> list[Probe]:
    """The probes that run at both pins, reproduce a scenario of the change in its mode and print a value that differs
    between the pins in that cell (or a value holding one)."""
    older, newer = (probes_of(probes, side.name, registry) for side in change.pair.sides)
    both = [p for p in older if p in newer]
    measured = f"{CONSTANTS}.{change.subject}" if change.rule == "default_moved" else None  # a probe that measures the default itself
    return [p for p in both if measured in p.shows or any(_reproduces(p, c) and _prints(p, [leaf.path for leaf in c.leaves]) for c in change.cells)]


def _reproduces(probe: Probe, cell: CellChange) -> bool:
    """Whether the probe plays the cell's scenario in the cell's mode; a ``defaults`` probe stands for a ``wire`` cell of
    any observable but the wire's own: the model's transport is all that differs between the two modes."""
    same_mode = probe.mode == cell.mode or (cell.mode == "wire" and probe.mode == "defaults" and cell.observable != "wire")
    return same_mode and probe.scenario == cell.key


def _prints(probe: Probe, leaves: list[tuple[str, ...]]) -> bool:
    paths = [tuple(path.split(".")) for path in probe.shows]
    return any(path[: len(leaf)] == leaf or leaf[: len(path)] == path for path in paths for leaf in leaves)
