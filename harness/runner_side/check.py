"""``--check``: what changed between the committed evidence and a fresh run, per observable.

A drift is reported at the level a reader acts on: a contract cell of one scenario
(``langgraph / defaults / high_risk_approved / side_effects``), an observable of the
hand-written engine, or a whole part (trace, steps) of a scenario record.
"""

from __future__ import annotations

import json
from typing import Any


def diff_documents(name: str, committed: dict[str, Any] | None, fresh: dict[str, Any]) -> list[str]:
    """Readable lines, one per drifted header field, summary, observable or part; empty when nothing drifted.

    Everything is compared exactly: every scenario and sub-case, every summary. A race a
    column can force is pinned by schedule into deterministic sub-cases, so nothing here
    is allowed to vary between runs.
    """
    if committed is None:
        return [f"{name}: not committed yet"]
    lines: list[str] = []
    for key in sorted(set(committed) | set(fresh)):
        if key != "modes" and committed.get(key) != fresh.get(key):
            lines.append(f"{name} / {key}: was {_compact(committed.get(key))}, now {_compact(fresh.get(key))}")
    old_modes, new_modes = committed.get("modes", {}), fresh.get("modes", {})
    for mode in sorted(set(old_modes) | set(new_modes)):
        if mode not in old_modes or mode not in new_modes:
            lines.append(f"{name} / {mode}: {'added' if mode in new_modes else 'removed'}")
            continue
        old_body, new_body = old_modes[mode], new_modes[mode]
        old_summary, new_summary = old_body.get("summary", {}), new_body.get("summary", {})
        for key in sorted(set(old_summary) | set(new_summary)):
            if old_summary.get(key) != new_summary.get(key):
                lines.append(f"{name} / {mode} / summary / {key}: was {_compact(old_summary.get(key))}, now {_compact(new_summary.get(key))}")
        old_s, new_s = old_body.get("scenarios", {}), new_body.get("scenarios", {})
        for scenario in sorted(set(old_s) | set(new_s)):
            where = f"{name} / {mode} / {scenario}"
            if scenario not in old_s or scenario not in new_s:
                lines.append(f"{where}: {'added' if scenario in new_s else 'removed'}")
                continue
            lines.extend(_diff_record(where, old_s[scenario], new_s[scenario]))
    return lines


def _diff_record(where: str, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    lines = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if key in ("columns", "actual", "expected") and isinstance(a, dict) and isinstance(b, dict):
            for observable in sorted(set(a) | set(b)):
                if a.get(observable) != b.get(observable):
                    lines.append(f"{where} / {observable}: {_cell_change(a.get(observable), b.get(observable))}")
        else:
            lines.append(f"{where} / {key} changed")
    return lines


def _cell_change(old: Any, new: Any) -> str:
    """Each part of a comparison cell that changed (framework, handwritten, equal, reason), or the whole value."""
    if isinstance(old, dict) and isinstance(new, dict) and "framework" in old and "framework" in new:
        parts = [key for key in ("framework", "handwritten", "equal", "reason") if old.get(key) != new.get(key)]
        return "; ".join(f"{key} was {_compact(old.get(key))}, now {_compact(new.get(key))}" for key in parts)
    return f"was {_compact(old)}, now {_compact(new)}"


def _compact(value: Any, width: int = 90) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= width else text[: width - 1] + "…"
