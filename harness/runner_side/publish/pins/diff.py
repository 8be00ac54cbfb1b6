"""What differs between two pins of one framework: their evidence documents side by side.

A framework's columns at two pins (``langgraph`` at 1.2.24 and ``langgraph@0.6.11``: ``harness.runner_side.run.environments.column_at``)
ran the same adapter on the same scenarios; every difference between their documents is the framework's. Compared,
older pin first:

- every cell (mode, scenario, observable) in both documents whose framework value differs, or whose rules differ
  (``cell_changes``), with each leaf that differs (``Leaf``: the value at each pin);
- the constants read in each pinned environment (``constants``: ``{ref, value}``), the mechanisms located there
  (``{ref, file, line}``) and the measured versions of the packages either pin's ``requirements.in`` names.

Nothing is typed here: every value comes from the two documents, every version from the registry's pins.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from harness.columns import Column
from harness.runner_side.judge import ABSENT, differing_paths, value_at
from harness.runner_side.run.environments import direct_pins, pin_version

Path = tuple[str, ...]


class PinError(ValueError):
    """Two pins that cannot be compared: an unknown framework or pin, the same pin twice, evidence missing."""


@dataclass(frozen=True)
class Side:
    """One pin: the version it runs at, its column's name and the column's evidence document."""

    version: str
    column: Column
    document: dict[str, Any]

    @property
    def name(self) -> str:
        return self.column.name


@dataclass(frozen=True)
class Pair:
    """Two pins of one framework, the older first (by version)."""

    adapter: str
    older: Side
    newer: Side

    @property
    def sides(self) -> tuple[Side, Side]:
        return self.older, self.newer


@dataclass(frozen=True)
class Leaf:
    """A value of a cell that differs between the pins: its path (the observable first) and the value at each pin
    (``ABSENT`` where a pin has no value there)."""

    path: Path
    older: Any
    newer: Any


@dataclass(frozen=True)
class CellChange:
    """One cell (mode, scenario key, observable) whose framework value or rules differ between the pins: the cell at
    each pin, as the evidence holds it, and the record's reasons at each pin."""

    mode: str
    key: str
    observable: str
    older: dict[str, Any]
    newer: dict[str, Any]
    older_reasons: tuple[dict[str, Any], ...]
    newer_reasons: tuple[dict[str, Any], ...]

    @property
    def leaves(self) -> list[Leaf]:
        """Every leaf where the framework's values at the two pins differ."""
        old, new = self.older["framework"], self.newer["framework"]
        return [Leaf((self.observable, *p), value_at(old, p), value_at(new, p)) for p in differing_paths(old, new)]

    def rules(self, side: str) -> tuple[str, ...]:
        """The rules that explain the cell at ``side`` (``older`` or ``newer``)."""
        return tuple(getattr(self, side).get("rules", ()))

    def reasons(self, side: str, rule: str) -> list[dict[str, Any]]:
        """The record's reasons of ``rule`` at ``side`` whose claims name this cell (or a value inside it)."""
        return [r for r in getattr(self, f"{side}_reasons") if r["rule"] == rule and any(c.split(".")[0] == self.observable for c in r["claims"])]


@dataclass(frozen=True)
class Moved:
    """A named value read at each pin that differs (a constant's ``{ref, value}``, a mechanism's ``{ref, file, line}``,
    a package's version); ``None`` where a pin has none."""

    name: str
    older: Any
    newer: Any


def sides(registry: dict[str, Column], adapter: str) -> list[Column]:
    """The columns of ``adapter`` at its pins, oldest version first (an adapter without pins: one column, or none)."""
    from packaging.version import Version

    found = [c for c in registry.values() if c.adapter == adapter and c.environment == "isolated"]
    return sorted(found, key=lambda c: Version(pin_version(c)))


def pair_of(registry: dict[str, Column], documents: dict[str, dict[str, Any]], adapter: str, first: str, second: str) -> Pair:
    """The pins ``first`` and ``second`` of ``adapter``, ordered by version, with their documents; ``PinError`` naming
    what is wrong (an unknown framework, a pin it does not have, the same pin twice, a document missing or not measured)."""
    from packaging.version import Version

    if not sides(registry, adapter):
        known = sorted({c.adapter for c in registry.values() if c.environment == "isolated"})
        raise PinError(f"no such framework {adapter!r} (known: {', '.join(known)})")
    if first == second:
        raise PinError(f"two different pins of {adapter} are needed, not {first} twice")
    chosen = []
    for version in sorted((first, second), key=Version):
        column = next((c for c in sides(registry, adapter) if pin_version(c) == version), None)
        if column is None:
            raise PinError(f"{adapter} has no pin {version} (its pins: {', '.join(pin_version(c) for c in sides(registry, adapter))})")
        document = documents.get(column.name)
        if document is None:
            raise PinError(f"no evidence of {column.name} ({column.name}.json in the evidence directory): run the comparison for that column "
                           "into it first (both pins' evidence must be there: --framework for each, one --output)")
        if document.get("status") != "measured":
            raise PinError(f"{column.name} was not measured: {document.get('reason', 'no reason given')}")
        chosen.append(Side(version, column, document))
    return Pair(adapter, chosen[0], chosen[1])


def pairs(documents: dict[str, dict[str, Any]], registry: dict[str, Column]) -> list[Pair]:
    """Every framework measured at more than one pin among ``documents``: each pin against the next, oldest first."""
    found = []
    for adapter in sorted({c.adapter for c in registry.values()}):
        measured = [c for c in sides(registry, adapter) if documents.get(c.name, {}).get("status") == "measured"]
        found += [pair_of(registry, documents, adapter, pin_version(a), pin_version(b)) for a, b in zip(measured, measured[1:], strict=False)]
    return found


def cell_changes(pair: Pair) -> list[CellChange]:
    """Every cell both pins ran whose framework value or rules differ, by mode, scenario key and observable."""
    older, newer = (s.document.get("modes", {}) for s in pair.sides)
    changes = []
    for mode in sorted(set(older) & set(newer), key=mode_order):
        old_runs, new_runs = older[mode]["scenarios"], newer[mode]["scenarios"]
        for key in sorted(set(old_runs) & set(new_runs)):
            old, new = old_runs[key], new_runs[key]
            for observable in sorted(set(old.get("columns", {})) & set(new.get("columns", {}))):
                a, b = old["columns"][observable], new["columns"][observable]
                if a["framework"] != b["framework"] or a.get("rules", []) != b.get("rules", []):
                    changes.append(CellChange(mode, key, observable, a, b, tuple(old.get("reasons", ())), tuple(new.get("reasons", ()))))
    return changes


def only_at_one(pair: Pair) -> list[tuple[str, str, str]]:
    """``(mode, scenario key, version)`` of every record only one pin holds (a forced ordering one pin has)."""
    older, newer = (s.document.get("modes", {}) for s in pair.sides)
    found = []
    for mode in sorted(set(older) | set(newer), key=mode_order):
        a, b = (set(m.get(mode, {}).get("scenarios", {})) for m in (older, newer))
        found += [(mode, key, pair.older.version if key in a else pair.newer.version) for key in sorted(a ^ b)]
    return found


def mode_order(mode: str) -> tuple[bool, str]:
    """``defaults`` first (what each framework hides), then the other modes by name."""
    return mode != "defaults", mode


def _moved(older: dict[str, Any], newer: dict[str, Any]) -> list[Moved]:
    return [Moved(k, older.get(k), newer.get(k)) for k in sorted(set(older) | set(newer)) if older.get(k) != newer.get(k)]


def constants(pair: Pair) -> list[Moved]:
    """The constants whose ``{ref, value}`` differ between the pins."""
    return _moved(*(s.document.get("constants", {}) for s in pair.sides))


def mechanisms(pair: Pair) -> list[Moved]:
    """The mechanisms whose ``{ref, file, line}`` differ between the pins."""
    return _moved(*(s.document.get("mechanisms", {}) for s in pair.sides))


def versions(pair: Pair) -> list[Moved]:
    """The measured versions that differ of the packages either pin's ``requirements.in`` names (its direct pins)."""
    direct = {name for s in pair.sides for name in direct_pins(s.column.environment_dir / "requirements.in")}
    older, newer = ({k: v for k, v in s.document.get("versions", {}).items() if k in direct} for s in pair.sides)
    return _moved(older, newer)


def shown_pair(older: Any, newer: Any, most: int = 80) -> tuple[str, str]:
    """Two values as ``shown`` gives them, each cut to ``most`` characters around where they start to differ (a long
    list of pending calls that differs in its last call shows that call, not the first)."""
    a, b = shown(older, 10**9), shown(newer, 10**9)
    if len(a) <= most and len(b) <= most:
        return a, b
    same = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    start = max(0, same - most // 4)
    return tuple(("…" if start else "") + t[start:start + most] + ("…" if len(t) > start + most else "") for t in (a, b))  # type: ignore[return-value]


def shown(value: Any, most: int = 80) -> str:
    """A value as the texts quote it: a string or number as it is, anything else as compact JSON cut at ``most``
    characters, ``<absent>`` where a pin has no value there."""
    if value is ABSENT:
        return "<absent>"
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= most else text[: most - 1] + "…"
