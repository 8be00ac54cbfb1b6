"""The scorecard: frameworks and modes as columns; as rows the behaviours the rule table found (grouped as every
framework, some, one) and the contract's stages; each cell a mark and a count of scenarios, derived from the evidence.

A behaviour's cell counts the scenarios whose stored reasons carry the rule in that column and mode (``collect`` of
``harness.runner_side.publish.findings``, consequences left out), out of the scenarios the column played there. A stage's cell
is judged by the rules that break that stage (``STAGES``): it counts the scenarios whose reasons carry one of them,
``differs`` when there is one, ``holds`` when there is none and the column played a scenario that exercises the stage
(its ``covers`` tags), ``n/a`` when it played none; the engine's own cells count the stage's scenarios whose run did not
meet their expectations. ``scorecard_svg`` draws the same table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import Any

from harness.columns import REFERENCE, known_columns
from harness.modes import MODES
from harness.runner_side.judge import stage_rules, titles
from harness.runner_side.judge.registry import STAGES as CONTRACT_STAGES
from harness.runner_side.publish.findings import collect
from harness.scenarios import Scenario

MODE_ORDER = MODES
STAGES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {stage: (label, tags, stage_rules(stage)) for stage, (label, tags) in CONTRACT_STAGES.items()}
"""stage -> (its label, the ``covers`` tags of the scenarios that exercise it, the rules whose findings break it: each rule
declares its stage, ``harness.runner_side.judge.registry``)."""


@dataclass(frozen=True)
class Cell:
    """One scorecard cell: its mark (``found`` / ``holds`` / ``differs`` / ``none`` / ``n/a``), the scenarios behind it
    (the ones that show the behaviour, or one of the rules that break the stage) out of ``of`` (the scenarios the column
    played in that mode, a forced ordering's sub-cases counted once)."""

    mark: str
    scenarios: tuple[str, ...] = ()
    of: int = 0
    rules: tuple[str, ...] = ()  # the rules whose findings the cell counts

@dataclass
class Scorecard:
    """Columns (``<column>/<mode>``), rows (id, label, group) and their cells; ``glue`` the contract columns' glue lines."""

    columns: list[str]
    rows: list[tuple[str, str, str]] = field(default_factory=list)
    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)
    glue: dict[str, int] = field(default_factory=dict)


def columns_of(documents: dict[str, dict[str, Any]]) -> list[str]:
    """Every measured column and mode, the engine first, then our own columns, then the frameworks by name."""
    def order(name: str) -> tuple[int, str]:
        return (0 if name == REFERENCE else 2 if _third_party(name) else 1, name)

    out = []
    for name in sorted(documents, key=order):
        modes = documents[name].get("modes", {})
        out += [f"{name}/{mode}" for mode in sorted(modes, key=lambda m: (MODE_ORDER.index(m) if m in MODE_ORDER else 9, m))]
    return out


def scorecard(documents: dict[str, dict[str, Any]], scenarios: dict[str, Scenario]) -> Scorecard:
    """The scorecard of these documents (``scenarios``: the scenario files by id, for their ``covers`` tags)."""
    card = Scorecard(columns_of(documents))
    card.glue = {f"{n}/contract": d["glue_lines"]["total"] for n, d in documents.items() if "glue_lines" in d and "contract" in d.get("modes", {})}
    found = {mode: collect(documents, mode) for mode in MODE_ORDER}
    rules = [rule for rule in titles() if any(rule in found[m] for m in MODE_ORDER)]
    frameworks = {n for n, d in documents.items() if d.get("status") == "measured" and _third_party(n)}
    for rule in rules:
        showing = {fw for m in MODE_ORDER for fw in found[m].get(rule, {}) if fw in frameworks}
        group = "every framework" if showing >= frameworks else "one framework" if len(showing) == 1 else "some frameworks"
        card.rows.append((f"rule:{rule}", titles()[rule], group))
        for column in card.columns:
            name, mode = column.split("/")
            keys = tuple(dict.fromkeys(k.split("@")[0] for k, _, _, _ in found.get(mode, {}).get(rule, {}).get(name, ())))
            ran = len(_played(documents, name, mode))
            card.cells[(f"rule:{rule}", column)] = Cell("found", keys, ran, (rule,)) if keys else Cell("none" if ran else "n/a", (), ran)
    card.rows.sort(key=lambda row: (("every framework", "some frameworks", "one framework").index(row[2]), rules.index(row[0][5:])))
    for stage, (label, tags, breakers) in STAGES.items():
        card.rows.append((f"stage:{stage}", label, "contract stages"))
        covering = {sid for sid, sc in scenarios.items() if set(sc.covers) & set(tags)}
        for column in card.columns:
            name, mode = column.split("/")
            records, played = _records(documents, name, mode), _played(documents, name, mode)
            by_rule = {rule: {k.split("@")[0] for k, _, _, _ in found.get(mode, {}).get(rule, {}).get(name, ())} for rule in breakers}
            breaking = set().union(*by_rule.values())
            if name == REFERENCE:  # the engine: its runs of the stage's scenarios against their expectations
                breaking = {k.split("@")[0] for k, r in records.items() if k.split("@")[0] in covering and (r["status"] != "ok" or r.get("equal") is False)}
            mark = "n/a" if not played & covering else "differs" if breaking else "holds"
            card.cells[(f"stage:{stage}", column)] = Cell(mark, tuple(sorted(breaking)), len(played), tuple(r for r, keys in by_rule.items() if keys))
    return card


def _third_party(name: str) -> bool:
    column = known_columns().get(name)
    return column is not None and column.environment == "isolated"


def _played(documents: dict[str, dict[str, Any]], name: str, mode: str) -> set[str]:
    """The scenarios a column played in a mode (a forced ordering's sub-cases are one scenario)."""
    return {k.split("@")[0] for k in _records(documents, name, mode)}


def _records(documents: dict[str, dict[str, Any]], name: str, mode: str) -> dict[str, dict[str, Any]]:
    return dict(documents[name].get("modes", {}).get(mode, {}).get("scenarios", {}))


def cell_text(cell: Cell) -> str:
    """What a cell says: a mark and the count (``3/44``: scenarios behind it of those that ran)."""
    symbol = {"found": "●", "differs": "✗", "holds": "✓", "none": "·", "n/a": "–"}[cell.mark]
    return f"{symbol} {len(cell.scenarios)}/{cell.of}" if cell.mark in ("found", "differs") else symbol


FILL = {"found": "#f4b183", "differs": "#f4b183", "holds": "#c5e0b4", "none": "#ffffff", "n/a": "#eeeeee"}


def scorecard_svg(card: Scorecard) -> str:
    """The scorecard as a deterministic SVG: row labels on the left, one column per framework and mode."""
    label_w, cell_w, cell_h, head_h = 640, 78, 20, 150
    groups = list(dict.fromkeys(g for _, _, g in card.rows))
    height = head_h + cell_h * (len(card.rows) + len(groups)) + 30
    width = label_w + cell_w * len(card.columns) + 130  # room for the last column's slanted name
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'font-family="DejaVu Sans, Arial, sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
           '<text x="6" y="18" font-size="15" font-weight="bold">What each framework hides: the scorecard (evidence/report.html)</text>',
           '<text x="6" y="36">● N/M: a behaviour found in N of the M scenarios played · ✗ N/M: a stage broken in N by its rules\' findings'
           ' · ✓ held · · not found · – not played</text>']
    for i, column in enumerate(card.columns):
        x = label_w + i * cell_w + cell_w // 2
        glue = f" ({card.glue[column]} glue)" if column in card.glue else ""
        out.append(f'<text transform="translate({x},{head_h - 6}) rotate(-40)">{escape(column + glue)}</text>')
    y = head_h
    for group in groups:
        out.append(f'<text x="6" y="{y + 15}" font-weight="bold">{escape(group)}</text>')
        y += cell_h
        for row_id, label, row_group in card.rows:
            if row_group != group:
                continue
            shown = label if len(label) <= 100 else label[:99] + "…"
            out.append(f'<text x="12" y="{y + 14}">{escape(shown)}</text>')
            for i, column in enumerate(card.columns):
                cell = card.cells[(row_id, column)]
                x = label_w + i * cell_w
                out.append(f'<rect x="{x}" y="{y}" width="{cell_w - 2}" height="{cell_h - 2}" fill="{FILL[cell.mark]}" stroke="#999999" stroke-width="0.5"/>')
                out.append(f'<text x="{x + cell_w // 2 - 1}" y="{y + 14}" text-anchor="middle">{escape(cell_text(cell))}</text>')
            y += cell_h
    out.append("</svg>")
    return "\n".join(out) + "\n"
