"""FINDINGS.md's section on the crash sweep (``evidence/sweep.json``, written by ``scripts/sweep.py``): per column and
mode the kill points tried and what followed them, then the findings of the sweep's rules
(``harness/runner_side/judge/rules/crashes.py``), each with the case it quotes and its probe."""

from __future__ import annotations

from html import escape
from typing import Any

from harness.columns import PIN_SEPARATOR
from harness.runner_side.judge.registry import sweep_rules
from harness.runner_side.judge.rules.crashes import CrashFinding, crash_findings
from harness.runner_side.publish.probes import Probe

INTRO = (
    "Measured by `python scripts/sweep.py` into `evidence/sweep.json` (`docs/sweep.md`): every committed scenario with a side effect "
    "or an approval, played as committed (its own faults included) in each column and mode, then once per kill point the column "
    "passed there (each model turn, each tool call before and after its effect, each intent checkpoint, and each state save the "
    "column makes, the framework's own persistence: LangGraph's checkpoint writes excepted, which its schedules and the next kill "
    "point meet; an approval decision is met at the first kill point after it, a save, the approved call's tool entry or the next "
    "model turn): the process killed there, one resume in a "
    "fresh process, then "
    "the scenario's remaining steps, under every schedule the column forces. A run takes no effect *beyond uninterrupted* when no "
    "call took effect more often than in any of the column's own runs of the scenario as committed (an effect it never reached, "
    "because it stopped for a reconciliation or a decision, is no extra one); an approval is *asked again* when a call approved "
    "before the kill was asked about after it more often than in any of those runs; a run is *stuck* when it ended `error`, "
    "`stalled` or `crashed` of a state the column found (not by a kill in its last step), where none of those runs did."
)


HEADINGS = ("column", "mode", "scenarios", "kill points", "runs", "no effect beyond uninterrupted", "an effect beyond", "asked again", "stuck",
            "kill never fired", "not measured")  # fmt: skip


def sweep_lines(sweep: dict[str, Any] | None, probes: list[Probe]) -> list[str]:
    """The section; a finding links the sweep probe (``MODE = "sweep"``) of its column's framework that reproduces one of
    its worst runs."""
    lines = ["## A crash at every kill point", "", INTRO]
    if not sweep:
        return [*lines, "", "(no `evidence/sweep.json` here: run `python scripts/sweep.py`)"]
    lines += ["", "| " + " | ".join(HEADINGS) + " |", "|" + "---|" * len(HEADINGS)]
    for column, modes in sorted(sweep["columns"].items()):
        for mode, rows in sorted(modes.items()):
            lines.append(f"| {column} | {mode} | " + " | ".join(str(n) for n in _counts(rows)) + " |")
    lines += [f"| {column} | | not measured: {reason} |" for column, reason in sorted(sweep.get("not_measured", {}).items())]
    found = crash_findings(sweep)
    for rule_id, (rule, _) in sweep_rules().items():
        lines += ["", f"### {rule.title} (`{rule_id}`)", ""]
        lines += [_line(f, quoting(probes, f)) for f in found if f.rule == rule_id] or ["(none)"]
    return lines


def _counts(rows: dict[str, dict[str, Any]]) -> tuple[int, ...]:
    def runs_with(kind: str) -> int:
        return sum(len({(e["kill_point"], e.get("schedule")) for e in row[kind]}) for row in rows.values())

    return (len(rows), sum(len(r["kill_points"]) for r in rows.values()), sum(r["runs"] for r in rows.values()),
            sum(r["exactly_once"] for r in rows.values()), runs_with("duplicates"), runs_with("approvals_lost"), runs_with("stuck"),
            sum(len(r["not_reached"]) for r in rows.values()), sum(len(r["errors"]) for r in rows.values()))  # fmt: skip


SHOWN = {"effect_repeated_after_kill": "side_effects.", "approval_asked_again_after_kill": "pre_approval_state.asked_again.", "stuck_after_kill": "status"}
"""What a sweep probe must print to stand behind a finding of each rule (``publish.probes.sweep_counts``)."""


def quoting(probes: list[Probe], finding: CrashFinding) -> Probe | None:
    """The sweep probe of the finding's framework that reproduces one of its worst runs (``CrashFinding.worst``) and
    prints what the finding's rule claims; none for a finding of ``contract``: a sweep probe is compared with the
    ``defaults`` rows."""
    adapter = finding.column.split(PIN_SEPARATOR)[0]
    if finding.mode != "defaults":
        return None
    return next((p for p in probes if p.mode == "sweep" and p.framework == adapter and p.scenario in finding.worst
                 and any(path.startswith(SHOWN[finding.rule]) for path in p.shows)), None)  # fmt: skip


def _line(finding: CrashFinding, probe: Probe | None) -> str:
    link = f"[{probe.file.rsplit('/', 1)[-1]}](../{probe.file})" if probe else "no probe yet"
    return f"- **{finding.column}**, {finding.mode} (probe: {link}): {finding.text}. Scenarios: {', '.join(f'`{s}`' for s in finding.scenarios)}."




def sweep_html(sweep: dict[str, Any] | None, probes: list[Probe]) -> str:
    """The report's section on the crash sweep: the same table and findings as FINDINGS.md's."""
    head = f"<section id='sweep'><h2>A crash at every kill point</h2><p>{escape(INTRO)}</p>"
    if not sweep:
        return head + "<p>No <code>sweep.json</code> beside this page: run <code>python scripts/sweep.py</code>.</p></section>"
    rows = "".join(f"<tr><td>{escape(column)}</td><td>{escape(mode)}</td>" + "".join(f"<td>{n}</td>" for n in _counts(rows)) + "</tr>"
                   for column, modes in sorted(sweep["columns"].items()) for mode, rows in sorted(modes.items()))  # fmt: skip
    table = "<table><tr>" + "".join(f"<th>{h}</th>" for h in HEADINGS) + f"</tr>{rows}</table>"
    found = crash_findings(sweep)
    parts = []
    for rule_id, (rule, _) in sweep_rules().items():
        items = "".join(f"<li><b>{escape(f.column)}</b>, {escape(f.mode)}: {escape(f.text)}" + _probe_html(quoting(probes, f)) + "</li>"
                        for f in found if f.rule == rule_id)  # fmt: skip
        parts.append(f"<h3>{escape(rule.title)} (<code>{escape(rule_id)}</code>)</h3><ul>{items or '<li>(none)</li>'}</ul>")
    return head + table + "".join(parts) + "</section>"


def _probe_html(probe: Probe | None) -> str:
    return f" (probe: <code>{escape(probe.file)}</code>)" if probe else " (no probe yet)"
