"""The side-by-side table the comparison prints: compact by default (fits 100 columns), wide on request.

Compact: one block per mode, one row per scenario, one numbered column per column, a mark per cell,
and under each block the observables that differ, per scenario and column. Wide: today's full table,
one row per scenario and one column per column and mode, with the differing observables in the cell.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from harness.columns import REFERENCE

WIDTH = 100
KEY_WIDTH = 60  # a longer scenario key is cut in the table (it is whole in the lists under it)
SHORT = {
    "status": "status",
    "step_statuses": "steps",
    "refusals": "refusals",
    "side_effects": "effects",
    "model": "model",
    "schema_failure_side_effects": "schema",
    "pre_approval_state": "approval",
    "idempotent_replay": "replay",
    "checkpoint_after_interrupt": "resume",
    "wire": "wire",
}
"""Short names of the observables, kept readable; the legend spells out each one."""
LEGEND = [
    "legend:",
    "  =     every applicable observable equals the engine's (for handwritten: its expected block)",
    "  ≠N    N observables differ from the engine's (listed under the block)",
    "  ERR   the scenario could not be measured (the reason is in the closing lines)",
    "  RACE  two runs of the scenario differed where nothing was declared (--check)",
    "  -     not run by this column (an ordering another column forces, or a boundary it lacks)",
    "  n/m   the column was not measured (the reason is in the closing lines)",
    "  n/e   no expectation given (handwritten only: its run is still every column's reference)",
    *textwrap.wrap("observables: " + ", ".join(f"{short}={name}" for name, short in SHORT.items() if short != name), WIDTH, subsequent_indent="  "),
]


def _differing(record: dict[str, Any]) -> list[str]:
    if "mismatches" in record:
        return [SHORT[n] for n in record["mismatches"]]
    return [SHORT[n] for n, c in record["columns"].items() if c["equal"] is False]


def _clip(key: str) -> str:
    return key if len(key) <= KEY_WIDTH else key[: KEY_WIDTH - 1] + "…"


def mark(record: dict[str, Any], raced: bool = False) -> str:
    """One cell of the compact table."""
    if record["status"] == "error":
        return "ERR"
    if raced:
        return "RACE"
    if "mismatches" in record and record["equal"] is None:
        return "n/e"
    differing = _differing(record)
    return f"≠{len(differing)}" if differing else "="


def compact(documents: dict[str, dict[str, Any]], races: Sequence[str] = ()) -> str:
    """One block per mode that fits ``WIDTH`` characters; ``races`` are ``<column>/<mode>/<key>/<part>``."""
    raced = {"/".join(r.split("/")[:3]) for r in races}
    names = list(documents)
    columns = ", ".join(f"{i}={n}{' (vs expected)' if n == REFERENCE else ''}" for i, n in enumerate(names, 1))
    lines = textwrap.wrap(f"columns: {columns}", WIDTH, subsequent_indent="  ")
    for mode in ("contract", "defaults", "wire"):
        in_mode = [n for n in names if mode in documents[n].get("modes", {}) or documents[n].get("status") != "measured"]
        keys = sorted({k for n in in_mode for k in documents[n].get("modes", {}).get(mode, {}).get("scenarios", {})})
        if not keys:  # no column ran this mode, or every scenario of the set is not applicable in it
            continue
        width = min(max(len(k) for k in keys), KEY_WIDTH) + 2
        lines += ["", f"{mode:<{width}}" + "".join(f"{names.index(n) + 1:>5}" for n in in_mode)]
        notes: list[str] = []
        for key in keys:
            cells, differ = [], []
            for n in in_mode:
                record = documents[n].get("modes", {}).get(mode, {}).get("scenarios", {}).get(key)
                cells.append("n/m" if documents[n].get("status") != "measured" else "-" if record is None else mark(record, f"{n}/{mode}/{key}" in raced))
                if record is not None and record["status"] == "ok" and (found := _differing(record)):
                    differ.append(f"{names.index(n) + 1}:{','.join(found)}")
            lines.append(f"{_clip(key):<{width}}" + "".join(f"{c:>5}" for c in cells))
            if differ:
                notes += textwrap.wrap(f"{key}: " + "; ".join(differ), WIDTH, subsequent_indent="    ")
        lines += ["", f"where {mode} differs (column number: observables):", *notes] if notes else []
    return "\n".join(lines + ["", *LEGEND])


def wide(documents: dict[str, dict[str, Any]]) -> str:
    """One row per scenario, one column per (column, mode), the differing observables in the cell (``--wide``)."""
    import pandas as pd

    table: dict[str, dict[str, str]] = {}
    for name, document in documents.items():
        for mode, body in document.get("modes", {}).items():
            label = f"{name}/{mode}" if name != REFERENCE else f"{name} (vs expected)"
            for scenario_id, record in body["scenarios"].items():
                differing = _differing(record)
                table.setdefault(label, {})[scenario_id] = (
                    "ERROR" if record["status"] == "error" else "n/e" if record.get("equal", True) is None else "≠ " + ",".join(differing) if differing else "="
                )
        if document.get("status") != "measured":
            table[f"{name}"] = {}
    rows = sorted({scenario_id for marks in table.values() for scenario_id in marks})
    frame = pd.DataFrame({label: [marks.get(r, "NOT MEASURED" if not marks else "-") for r in rows] for label, marks in table.items()}, index=rows)
    return str(frame.to_string())
