"""The comparator: every observable of a column, side by side with the hand-written engine's.

The hand-written value is the engine's *measured* observation of the same scenario,
never the scenario's ``expected`` block. A cell a scenario does not exercise is
``n/a`` with ``equal: null``, and so is an optional one (``wire``, ``mcp``) the engine's run does not have (a
framework's value it lacks is still shown); summaries count only applicable cells.
"""

from __future__ import annotations

from typing import Any

from harness.runner_side.judge import Reason, explain
from harness.runner_side.observe.observables import NA, OBSERVABLES, OPTIONAL


def describe_difference(reference: Any, value: Any, path: str = "", limit: int = 3) -> str:
    """The first few differing leaves, as ``path: hand-written X, framework Y``."""
    found: list[str] = []

    def walk(a: Any, b: Any, where: str) -> None:
        if len(found) >= limit or a == b:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b)):
                walk(a.get(key, "<absent>"), b.get(key, "<absent>"), f"{where}.{key}" if where else str(key))
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for index, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, f"{where}[{index}]")
        else:
            found.append(f"{where or '(value)'}: hand-written {_short(a)}, framework {_short(b)}")

    walk(reference, value, path)
    return "; ".join(found)


def _short(value: Any, width: int = 60) -> str:
    import json

    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= width else text[: width - 1] + "…"


def cell(name: str, reference: Any, value: Any, found: list[Reason] | None = None) -> dict[str, Any]:
    """One contract column of one scenario; a not-equal cell carries the measured difference, the reasons the
    rules derive for it (``harness.runner_side.judge``) and the ids of the rules behind them."""
    if reference == NA and value == NA:
        return {"handwritten": NA, "framework": NA, "equal": None}
    if name in OPTIONAL and reference == NA:  # the engine's run has none to compare with: the in-process engine has no MCP client
        return {"handwritten": reference, "framework": value, "equal": None}
    if reference == value:
        return {"handwritten": reference, "framework": value, "equal": True}
    said, rules, explained = explain(name, reference, value, found or [])
    out = {"handwritten": reference, "framework": value, "equal": False, "reason": f"{describe_difference(reference, value, name)}. {said}", "rules": rules}
    return out | ({} if explained else {"unexplained": True})


def compare_scenario(reference: dict[str, Any] | None, record: dict[str, Any], found: list[Reason] | None = None) -> dict[str, dict[str, Any]]:
    """Every observable of one scenario record against the reference record."""
    mine = record["observables"]
    if reference is None or reference["status"] != "ok":
        why = "the hand-written reference did not run this scenario cleanly"
        return {n: {"handwritten": None, "framework": mine[n], "equal": False, "reason": why, "rules": []} for n in OBSERVABLES}
    theirs = reference["observables"]
    if record["status"] == "error":
        why = f"the column errored: {record['error']}"
        return {n: {"handwritten": theirs[n], "framework": mine[n], "equal": False, "reason": why, "rules": []} for n in OBSERVABLES}
    return {n: cell(n, theirs[n], mine[n], found) for n in OBSERVABLES}


def summarize(scenarios: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Counts over a mode's scenarios; only applicable cells (equal is not null) count as cells. A not-equal cell
    with a differing leaf no rule explains is counted in ``unexplained_cells``."""
    cells = [c for s in scenarios.values() for c in s["columns"].values() if c["equal"] is not None]
    return {
        "scenarios": len(scenarios),
        "errors": sum(s["status"] == "error" for s in scenarios.values()),
        "applicable_cells": len(cells),
        "equal_cells": sum(c["equal"] is True for c in cells),
        "not_equal_cells": sum(c["equal"] is False for c in cells),
        "unexplained_cells": sum(bool(c.get("unexplained")) for c in cells),
    }
