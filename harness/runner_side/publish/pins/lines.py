"""What ``scripts/compare_pins.py`` prints, and the sentences FINDINGS.md and the report share about a change.

``compared(pair)`` is the whole comparison of two pins, a line each (wrapped by ``console.wrapped`` at 100 columns,
each continuation indented under its line): the constants, mechanisms and directly pinned versions that differ, the
records only one pin holds, then every cell that differs (mode/scenario/observable) with the framework's values at
each pin and the rules behind each side's cell, each with the first words of its reason. Deterministic: everything is
sorted, nothing is measured here.
"""

from __future__ import annotations

from typing import Any

from harness.runner_side.judge import titles
from harness.runner_side.publish.console import wrapped
from harness.runner_side.publish.pins.diff import CellChange, Leaf, Moved, Pair, cell_changes, constants, mechanisms, only_at_one, shown, shown_pair, versions
from harness.runner_side.publish.pins.rules import APPEARED, Change

LEAVES_SHOWN = 8
"""Leaves a cell or a scenario line lists before the rest are counted."""
REASON_SHOWN = 160
"""Characters of a reason's text printed beside its rule."""


def versus(leaf: Leaf) -> str:
    """``side_effects.t1.effects 1 vs 2``: a leaf's path and its value at each pin, older first."""
    older, newer = shown_pair(leaf.older, leaf.newer)
    return f"{'.'.join(leaf.path)} {older} vs {newer}"


def leaves_text(leaves: list[Leaf], most: int = LEAVES_SHOWN) -> str:
    """The leaves, ``; ``-separated, the ones past ``most`` counted."""
    if not leaves:
        return "the same values at both pins"
    more = len(leaves) - most
    return "; ".join(versus(leaf) for leaf in leaves[:most]) + (f"; and {more} more differing values" if more > 0 else "")


def by_scenario(cells: tuple[CellChange, ...]) -> list[tuple[str, list[str], list[Leaf]]]:
    """The cells of a change per scenario key (``<mode>/<key>`` when they span modes, as a default's do): its observables
    and the leaves that differ between the pins there."""
    spans = len({c.mode for c in cells}) > 1
    label = {id(c): f"{c.mode}/{c.key}" if spans else c.key for c in cells}
    keys = list(dict.fromkeys(label[id(c)] for c in cells))
    return [(key, [c.observable for c in cells if label[id(c)] == key], [leaf for c in cells if label[id(c)] == key for leaf in c.leaves])
            for key in keys]


def constant_text(moved: Moved, pair: Pair) -> str:
    """``25 at 0.6.11, 10007 at 1.2.24`` and the reference (each pin's when they differ), backticked."""
    (old, new), (a, b) = (moved.older or {}, moved.newer or {}), (pair.older.version, pair.newer.version)
    values = f"{_value(moved.older)} at {a}, {_value(moved.newer)} at {b}"
    refs = f"`{old['ref']}`" if old.get("ref") == new.get("ref") else f"`{old.get('ref', 'not read')}` at {a}, `{new.get('ref', 'not read')}` at {b}"
    return f"`{moved.name}` ({refs}): {values}"


def _value(constant: dict[str, Any] | None) -> str:
    return "not read" if constant is None else shown(constant["value"])


def quoted_by(change: Change) -> list[str]:
    """``mode/key`` of every record, at either pin, whose reasons quote a default's reference there."""
    found = set()
    for side, constant in (("older", change.older), ("newer", change.newer)):
        if not constant:
            continue
        for mode, body in getattr(change.pair, side).document.get("modes", {}).items():
            found |= {f"{mode}/{key}" for key, record in body["scenarios"].items() if any(constant["ref"] in r["text"] for r in record.get("reasons", ()))}
    return sorted(found)


def compared(pair: Pair) -> list[str]:
    """The whole comparison of the two pins, a line each, wrapped at ``console.WIDTH``."""
    a, b = pair.older.version, pair.newer.version
    lines = [f"{pair.adapter} at {a} ({pair.older.name}.json) against {pair.adapter} at {b} ({pair.newer.name}.json); "
             f"every pair of values reads {a} vs {b}", ""]
    moved = constants(pair)
    lines += [f"constants that differ ({len(moved)}):" if moved else "constants that differ: none"]
    lines += [f"  {m.name}: {_value(m.older)} vs {_value(m.newer)} ({_refs(m)})" for m in moved]
    found = mechanisms(pair)
    lines += [f"mechanisms that differ ({len(found)}):" if found else "mechanisms that differ: none"]
    lines += [f"  {m.name}: {_where(m.older)} vs {_where(m.newer)}" for m in found]
    pinned = versions(pair)
    lines += [f"directly pinned versions that differ ({len(pinned)}):" if pinned else "directly pinned versions that differ: none"]
    lines += [f"  {m.name} {m.older or 'not installed'} vs {m.newer or 'not installed'}" for m in pinned]
    alone = only_at_one(pair)
    lines += [f"records only one pin holds: {'; '.join(f'{mode}/{key} (only at {v})' for mode, key, v in alone) or 'none'}"]
    cells = cell_changes(pair)
    lines += ["", f"cells that differ ({len(cells)}): mode/scenario/observable, the framework's values at {a} vs {b} (or the rules alone "
                  "differ), then the rules behind each side's cell with the start of their reasons"]
    for cell in cells:
        lines += ["", f"{cell.mode}/{cell.key}/{cell.observable}"]
        lines += [f"    {versus(leaf)}" for leaf in cell.leaves[:LEAVES_SHOWN]] or ["    the same values at both pins; the rules differ"]
        if len(cell.leaves) > LEAVES_SHOWN:
            lines.append(f"    and {len(cell.leaves) - LEAVES_SHOWN} more differing values")
        for side, version in (("older", a), ("newer", b)):
            lines += _side(cell, side, version)
    return [wrapped(line, " " * (len(line) - len(line.lstrip()) + 4)) if line else "" for line in lines]


def _refs(moved: Moved) -> str:
    old, new = (moved.older or {}).get("ref"), (moved.newer or {}).get("ref")
    return str(old or "not read") if old == new else f"{old or 'not read'} vs {new or 'not read'}"


def _where(mechanism: dict[str, Any] | None) -> str:
    return "not located" if mechanism is None else f"{mechanism['ref']} {mechanism['file']}:{mechanism['line']}"


def _side(cell: CellChange, side: str, version: str) -> list[str]:
    """What explains the cell at one pin: its rules, each with the start of its reason, or why none is needed."""
    value = getattr(cell, side)
    rules = cell.rules(side)
    if not rules:
        state = {True: "equal to the engine's cell", None: "not applicable"}.get(value["equal"], "differs from the engine's cell; no rule explains it")
        return [f"    at {version}: {state}"]
    out = [f"    at {version}: {', '.join(rules)}"]
    for rule in rules:
        texts = [r["text"] for r in cell.reasons(side, rule)]
        text = texts[0] if texts else "(its reason names no value of this cell)"
        more = f" (and {len(texts) - 1} more reasons of this rule)" if len(texts) > 1 else ""
        out.append(f"      {rule} ({titles().get(rule, 'untitled')}): {_clip(text)}{more}")
    return out


def _clip(text: str) -> str:
    return text if len(text) <= REASON_SHOWN else text[: REASON_SHOWN - 1] + "…"


def change_head(change: Change, who: str, links: str) -> str:
    """The first line of a change as FINDINGS.md and the report give it (backticks mark code): ``who`` (the framework,
    as the page shows a name), what changed, at which pins, then ``links`` (the probe behind it)."""
    pair = change.pair
    a, b = pair.older.version, pair.newer.version
    if change.mode is None:
        head = f"{who}, {constant_text(Moved(change.subject, change.older, change.newer), pair)}"
        if change.cells:
            return f"{head}; the cells that differ between the pins where a reason quotes it, values {a} vs {b} ({links}):"
        quoted = quoted_by(change)
        where = (f"the reasons that quote it ({', '.join(f'`{q}`' for q in quoted)}) explain cells whose values are the same at both pins"
                 if quoted else "no reason at either pin quotes it, so no cell is tied to it")
        return f"{head}; {where} ({links})."
    there, missing = (b, a) if change.rule == APPEARED else (a, b)
    return (f"{who}, {change.mode}: {titles().get(change.subject, change.subject)} (`{change.subject}`) explains these cells "
            f"at {there} and not at {missing}; values {a} vs {b} ({links}):")
