"""``--check``: what changed between the committed evidence and a fresh run, per observable.

A drift is reported at the level a reader acts on: a contract cell of one scenario
(``langgraph / defaults / high_risk_approved / side_effects``), an observable of the
hand-written engine, or a whole part (trace, steps) of a scenario record.

A drift is one string; a long one continues on lines indented by four spaces. Values are
shown around the point where they differ (``…`` marks a cut side), a changed list
(trace, steps, facts, reasons) by its first differing item with one item before and
after it, so the reader sees what changed without opening 400 KB files.
"""

from __future__ import annotations

import json
from difflib import SequenceMatcher
from typing import Any

from harness.columns import REFERENCE

LINE = 100  # the width a drift's lines aim for (a terminal's usual width)
SHORT = 40  # a value this short is shown whole, on the drift's first line
INDENT = "    "
NOUNS = {"trace": "event", "steps": "step", "facts": "fact", "reasons": "reason", "model_requests": "request"}
EVERY_COLUMN = "in every column"


def diff_documents(name: str, committed: dict[str, Any] | None, fresh: dict[str, Any]) -> list[str]:
    """Readable drifts, one per drifted header field, summary, observable or part; empty when nothing drifted.

    Everything is compared exactly: every scenario and sub-case, every summary. A race a
    column can force is pinned by schedule into deterministic sub-cases, so nothing here
    is allowed to vary between runs.
    """
    if committed is None:
        return [f"{name}: not committed yet"]
    lines: list[str] = []
    for key in sorted(set(committed) | set(fresh)):
        if key != "modes" and committed.get(key) != fresh.get(key):
            lines.append(_change(f"{name} / {key}", committed.get(key), fresh.get(key)))
    old_modes, new_modes = committed.get("modes", {}), fresh.get("modes", {})
    for mode in sorted(set(old_modes) | set(new_modes)):
        if mode not in old_modes or mode not in new_modes:
            lines.append(f"{name} / {mode}: {'added' if mode in new_modes else 'removed'}")
            continue
        old_body, new_body = old_modes[mode], new_modes[mode]
        old_summary, new_summary = old_body.get("summary", {}), new_body.get("summary", {})
        for key in sorted(set(old_summary) | set(new_summary)):
            if old_summary.get(key) != new_summary.get(key):
                lines.append(_change(f"{name} / {mode} / summary / {key}", old_summary.get(key), new_summary.get(key)))
        old_s, new_s = old_body.get("scenarios", {}), new_body.get("scenarios", {})
        for scenario in sorted(set(old_s) | set(new_s)):
            where = f"{name} / {mode} / {scenario}"
            if scenario not in old_s or scenario not in new_s:
                lines.append(f"{where}: {'added' if scenario in new_s else 'removed'}")
                continue
            lines.extend(_diff_record(where, old_s[scenario], new_s[scenario]))
    return lines


def collapse_common(lines_by_document: dict[str, list[str]]) -> list[str]:
    """All documents' drifts in order, a drift found identically in every column printed once.

    ``lines_by_document`` maps a document's file name to what ``diff_documents`` returned
    for it. A drift whose text after the file name (mode, scenario, observable or part,
    old and new values) is the same in every column document, with at least two of them,
    is printed once, at its first place, as ``in every column / …``. The reference engine's
    document (``handwritten.json``) is not a column: its drifts are always printed as they are.
    """
    columns = [name for name in lines_by_document if name != f"{REFERENCE}.json"]
    rests = {name: {_rest(name, line) for line in lines_by_document[name]} for name in columns}
    common = set.intersection(*rests.values()) if len(columns) >= 2 else set()
    out: list[str] = []
    printed: set[str] = set()
    for name, lines in lines_by_document.items():
        for line in lines:
            rest = _rest(name, line) if name in rests else line
            if name not in rests or rest not in common:
                out.append(line)
            elif rest not in printed:
                printed.add(rest)
                out.append(f"{EVERY_COLUMN}{rest}")
    return out


def _rest(name: str, line: str) -> str:
    """A drift without its file name (``" / defaults / s1 / trace: …"``); the file name is every line's start."""
    return line[len(name):] if line.startswith(name) else line


def _diff_record(where: str, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    lines = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if key in ("columns", "actual", "expected") and isinstance(a, dict) and isinstance(b, dict):
            for observable in sorted(set(a) | set(b)):
                if a.get(observable) != b.get(observable):
                    lines.append(_cell_change(f"{where} / {observable}", a.get(observable), b.get(observable)))
        elif isinstance(a, list) and isinstance(b, list):
            lines.append(_list_change(f"{where} / {key}", NOUNS.get(key, "item"), a, b))
        else:
            lines.append(_change(f"{where} / {key}", a, b))
    return lines


def _cell_change(where: str, old: Any, new: Any) -> str:
    """Each part of a comparison cell that changed (framework, handwritten, equal, reason), or the whole value."""
    if isinstance(old, dict) and isinstance(new, dict) and "framework" in old and "framework" in new:
        parts = [(key, old.get(key), new.get(key)) for key in ("framework", "handwritten", "equal", "reason") if old.get(key) != new.get(key)]
        return _parts(where, parts)
    return _change(where, old, new)


def _change(where: str, old: Any, new: Any) -> str:
    """One value that changed: ``where: was A, now B`` when short, else was/now on lines of their own."""
    return _parts(where, [("", old, new)])


def _parts(where: str, parts: list[tuple[str, Any, Any]]) -> str:
    """Changed parts on the first line when every value is short; else one part per continuation line,
    a long part as aligned ``was``/``now`` lines cut around the point where they differ."""
    texts = [(label, _json(a), _json(b)) for label, a, b in parts]
    if all(len(a) <= SHORT and len(b) <= SHORT for _, a, b in texts):
        return f"{where}: " + "; ".join(f"{label + ' ' if label else ''}was {a}, now {b}" for label, a, b in texts)
    lines = [f"{where}:"]
    for label, a, b in texts:
        lead = INDENT + (label + " " if label else "")
        if len(a) <= SHORT and len(b) <= SHORT:
            lines.append(f"{lead}was {a}, now {b}")
            continue
        shown_a, shown_b = window(a, b, LINE - len(lead) - 8)
        lines += [f"{lead}was {shown_a}", f"{' ' * len(lead)}now {shown_b}"]
    return "\n".join(lines)


def _list_change(where: str, noun: str, old: list[Any], new: list[Any]) -> str:
    """A changed list by its first differing run of items, with one unchanged item before and after it."""
    a = [_json(item, compact=True) for item in old]
    b = [_json(item, compact=True) for item in new]
    hunks = _hunks(a, b)
    _, i1, i2, j1, j2 = hunks[0]
    more = f"; {len(hunks) - 1} more difference{'s' if len(hunks) > 2 else ''} after it" if len(hunks) > 1 else ""
    counts = _count(len(a), noun) if len(a) == len(b) else f"was {_count(len(a), noun)}, now {len(b)}"
    lines = [f"{where} ({counts}): first difference at {noun} {i1}{more}"]
    width = LINE - len(INDENT) - 8 - len(str(max(len(a), len(b))))
    if i1 > 0:
        lines.append(f"{INDENT}  [{i1 - 1}] {_cut(a[i1 - 1], width)}")
    removed, added = a[i1:i2], b[j1:j2]
    if len(removed) == 1 and len(added) == 1:
        shown_old, shown_new = window(removed[0], added[0], width - 2)
        removed, added = [shown_old], [shown_new]
    lines += _items("-", i1, removed, width) + _items("+", j1, added, width)
    if i2 < len(a):
        index = f"{i2}" if i2 == j2 else f"{i2}/{j2}"
        lines.append(f"{INDENT}  [{index}] {_cut(a[i2], width)}")
    return "\n".join(lines)


def _hunks(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """The runs of items that differ, as difflib opcodes; lists are trimmed of their common ends first,
    and a long middle is one run (difflib on thousands of events would cost more than the check)."""
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    mid_a, mid_b = a[start:len(a) - end], b[start:len(b) - end]
    if len(mid_a) * len(mid_b) > 250_000:
        return [("replace", start, len(a) - end, start, len(b) - end)]
    codes = SequenceMatcher(None, mid_a, mid_b, autojunk=False).get_opcodes()
    return [(tag, i1 + start, i2 + start, j1 + start, j2 + start) for tag, i1, i2, j1, j2 in codes if tag != "equal"]


def _items(mark: str, first: int, items: list[str], width: int, most: int = 3) -> list[str]:
    lines = [f"{INDENT}{mark} [{first + n}] {_cut(item, width)}" for n, item in enumerate(items[:most])]
    if len(items) > most:
        lines.append(f"{INDENT}{mark} … {len(items) - most} more")
    return lines


def window(a: str, b: str, width: int) -> tuple[str, str]:
    """Both texts, each cut to about ``width`` characters around their first differing character.

    The same window is cut from both, so the difference sits at the same column in each;
    ``…`` marks every side that was cut. Texts that fit are returned whole.
    """
    if len(a) <= width and len(b) <= width:
        return a, b
    at = next((n for n, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    # About a third of the window before the difference, but never past the longer text's end.
    start = max(0, min(at - width // 3, max(len(a), len(b)) - width)) if at >= width * 2 // 3 else 0
    return _slice(a, start, width), _slice(b, start, width)


def _slice(text: str, start: int, width: int) -> str:
    if start == 0 and len(text) <= width:
        return text
    piece = text[start:start + width]
    return ("…" if start > 0 else "") + piece + ("…" if start + width < len(text) else "")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _json(value: Any, compact: bool = False) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":") if compact else None)
