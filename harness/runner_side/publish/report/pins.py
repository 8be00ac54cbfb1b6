"""The report's "What changed between pins": the changes of ``publish.pins.rules`` for every framework measured at two
pins, as FINDINGS.md lists them, each scenario linked to its section of the page.

Each change is one ``<div class='pin-change'>`` (no ``div`` inside it) (its rule, framework, subject and mode as data attributes), of a size
bounded by ``budget.pin_change_budget`` (a base and an allowance per scenario it lists: a scenario's line lists at most
``lines.LEAVES_SHOWN`` values, each cut to 80 characters).
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from harness.columns import Column
from harness.runner_side.publish.pins.diff import Pair, pairs, versions
from harness.runner_side.publish.pins.lines import by_scenario, change_head, leaves_text
from harness.runner_side.publish.pins.rules import Change, changes, pin_titles, probes_behind
from harness.runner_side.publish.probes import Probe

INTRO = (
    "A framework measured at two pins runs the same adapter on the same scenarios in two pinned environments: what differs "
    "between its two evidence files is the framework's. A default that moved is a constant read in each pinned environment "
    "whose value differs; a behaviour that appeared is a rule that explains a cell at the newer pin and did not at the older "
    "one (same mode, scenario and observable), one that went the other way round (consequences left out). Values read older "
    "vs newer. scripts/compare_pins.py prints every differing cell with the rules behind each side."
)


def pins_html(documents: dict[str, dict[str, Any]], registry: dict[str, Column], probes: list[Probe]) -> str:
    """The section, or a line saying no framework is measured at two pins."""
    found = [(pair, changes(pair)) for pair in pairs(documents, registry)]
    body = [f"<section id='pins'><h2>What changed between pins</h2><p>{escape(INTRO)}</p>"]
    if not found:
        return body[0] + "<p>No framework is measured at two pins.</p></section>"
    body.append("<ul>" + "".join(_pair(pair) for pair, _ in found) + "</ul>")
    for rule, title in pin_titles().items():
        items = [_change(change, registry, probes) for _, cs in found for change in cs if change.rule == rule]
        body.append(f"<h3>{escape(title)} <code>{escape(rule)}</code></h3>" + (f"<div class='pin-changes'>{''.join(items)}</div>" if items else "<p>(none)</p>"))
    return "".join(body) + "</section>"


def _pair(pair: Pair) -> str:
    moved = "; ".join(f"{m.name} {m.older or 'not installed'} vs {m.newer or 'not installed'}" for m in versions(pair))
    return (f"<li><b>{escape(pair.adapter)}</b>: {escape(pair.older.version)} (<code>{escape(pair.older.name)}</code>) and "
            f"{escape(pair.newer.version)} (<code>{escape(pair.newer.name)}</code>); the directly pinned versions that differ: {escape(moved or 'none')}.</li>")


def _change(change: Change, registry: dict[str, Column], probes: list[Probe]) -> str:
    pair, linked = change.pair, probes_behind(change, probes, registry)
    head = change_head(change, pair.adapter, f"probe: {', '.join(p.file for p in linked)}" if linked else "no probe yet")
    rows = "".join(f"<li><a href='#scenario-{escape(key.split('/')[-1].split('@')[0])}'><code>{escape(key)}</code></a> ({escape(', '.join(observables))}): "
                   f"{escape(leaves_text(leaves))}</li>" for key, observables, leaves in by_scenario(change.cells))
    attrs = (f"data-pin-rule='{escape(change.rule)}' data-framework='{escape(pair.adapter)}' data-subject='{escape(change.subject)}' "
             f"data-mode='{escape(change.mode or '')}'")
    return f"<div class='pin-change' {attrs} data-scenarios='{len(by_scenario(change.cells))}'><p>{_code(head)}</p>" + (f"<ul>{rows}</ul>" if rows else "") + "</div>"


def _code(text: str) -> str:
    """Escaped text with its backticked parts as ``<code>``."""
    return re.sub(r"`([^`]*)`", r"<code>\1</code>", escape(text))
