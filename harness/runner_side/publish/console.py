"""Everything the comparison prints, each line at most ``WIDTH`` characters (the wide table is the one exception,
asked for by name): a progress line per finished scenario, the side-by-side table, the summaries, what the run cost,
where the findings are and, last and on stderr, every error with its reason.

The table is compact by default: one block per mode, one row per scenario, one numbered column per column, a mark per cell,
and under each block the observables that differ, per scenario and column. Wide: today's full table,
one row per scenario and one column per column and mode, with the differing observables in the cell.
"""

from __future__ import annotations

import sys
import textwrap
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from harness.columns import REFERENCE, ROOT
from harness.errors import printable
from harness.modes import compared_with
from harness.runner_side.publish.costs import cost_lines
from harness.runner_side.run.runner import ColumnResult

WIDTH = 100
KEY_WIDTH = 60  # a longer scenario key is cut in the table, or a shorter one when many columns leave less room (whole in the lists under it)
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


def _clip(key: str, room: int = KEY_WIDTH) -> str:
    return key if len(key) <= room else key[: room - 1] + "…"


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
        room = min(KEY_WIDTH, WIDTH - 2 - 5 * len(in_mode))  # the key is cut where the columns would run past WIDTH
        width = min(max(len(k) for k in keys), room) + 2
        lines += ["", f"{mode:<{width}}" + "".join(f"{names.index(n) + 1:>5}" for n in in_mode)]
        notes: list[str] = []
        for key in keys:
            cells, differ = [], []
            for n in in_mode:
                record = documents[n].get("modes", {}).get(mode, {}).get("scenarios", {}).get(key)
                cells.append("n/m" if documents[n].get("status") != "measured" else "-" if record is None else mark(record, f"{n}/{mode}/{key}" in raced))
                if record is not None and record["status"] == "ok" and (found := _differing(record)):
                    differ.append(f"{names.index(n) + 1}:{','.join(found)}")
            lines.append(f"{_clip(key, room):<{width}}" + "".join(f"{c:>5}" for c in cells))
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


def wrapped(line: str, indent: str = "    ") -> str:
    """A line for a reader at a terminal: paths under the repository relative to it, scenario and column text
    ``printable``, wrapped at ``WIDTH`` (each continuation indented)."""
    text = printable(line.replace(f"{ROOT}/", ""), lines=True)
    return "\n".join(textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False, break_long_words=True)) or text


_WRITING = threading.Lock()


def say(line: str = "", to: TextIO | None = None) -> None:
    """Print ``line`` wrapped (``wrapped``), on stdout unless ``to`` says otherwise: in one write under a lock, since
    every column's thread reports its progress (``print`` writes the line and its newline apart, and two threads'
    lines would run into one)."""
    stream = to or sys.stdout
    with _WRITING:
        stream.write((wrapped(line) if line else "") + "\n")
        stream.flush()


def shown(path: Path) -> str:
    """A path as the reader typed it: relative to where they stand when it is below, else absolute."""
    path = path.resolve()
    return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else str(path)


class Progress:
    """One column's progress lines: its log, a line per finished scenario (or sub-case) against its plan, its end."""

    def __init__(self, column: str, planned: int, started: float) -> None:
        self.column, self.planned, self.done, self.started = column, planned, 0, started
        self._plans = 0  # a column may run in two processes (``runner.processes``): each sends its plan
        self._lock = threading.Lock()

    def log(self, message: str) -> None:
        say(f"[{self.column}] {message}")

    def line(self, line: str) -> None:
        """A column process's plan (``plan <n>``: the plans of a column's processes add up), then ``<mode>/<scenario>``
        as each scenario finishes."""
        with self._lock:
            if line.startswith("plan "):
                self.planned = int(line.split()[1]) + (self.planned if self._plans else 0)
                self._plans += 1
                return
            self.done += 1
            total = f"{self.planned}" if self.done <= self.planned else f"{self.planned}+"  # forced orderings (sub-cases) add runs
            shown = f"[{self.column}] {self.done}/{total} {line} ({time.perf_counter() - self.started:.0f} s)"
        say(shown)

    def ended(self, result: ColumnResult) -> None:
        if result.status != "measured":
            self.log(f"NOT MEASURED: {result.reason}")
            return
        parts = [f"{mode}: {len(records)} scenarios" for mode, records in sorted(result.modes.items())]
        network = f"; refused network: {', '.join(result.network.refused)}" if result.network.refused else ""
        self.log(f"measured ({'; '.join(parts)}) in {result.timings.get('total_s', 0):.1f} s{network}")


def table(documents: dict[str, dict[str, Any]], races: Sequence[str], wide_table: bool = False) -> None:
    """The side-by-side table of what this run measured: compact, or wide with the last two lines of the legend."""
    print()
    print(wide(documents) + "\n" + "\n".join(LEGEND[-2:]) if wide_table else compact(documents, races))


def closing(results: dict[str, ColumnResult], documents: dict[str, dict[str, Any]], wall_s: float, output: Path, *, check: bool,
            allow_not_measured: bool, sample: bool = False) -> list[str]:
    """Print the summaries, what the run cost (``wall_s`` in all), where the findings and evidence are, and every error
    with its reason (the scenarios that could not be measured, the undeclared races, the columns not measured); return
    what makes the run fail."""
    print()
    failures = summaries(documents)
    problems = [f"{name}/{mode}/{key} could not be measured: {record['error']}" for name, document in documents.items()
                for mode, body in sorted(document.get("modes", {}).items()) for key, record in body["scenarios"].items() if record["status"] == "error"]  # fmt: skip
    failures += [f"{len(problems)} scenario runs could not be measured"] if problems else []
    races = [race for result in results.values() for race in result.undeclared_races]
    problems += [f"undeclared race: {race}" for race in races]
    failures += [f"{len(races)} undeclared races"] if races else []
    for name, result in results.items():
        if result.status != "measured":
            problems.append(f"{name} was NOT MEASURED: {result.reason}")
            failures += [f"{name} not measured"] if not allow_not_measured or name == REFERENCE else []
        if result.glue_coverage is not None:  # --check: the second runs were line-traced against the column's glue count
            for line in result.glue_coverage.report().splitlines():
                say(line)
            failures += [] if result.glue_coverage.ok else [f"{name}'s glue count is not exact"]
        if result.glue_coverage_problem:
            problems.append(f"{name}: glue coverage: {result.glue_coverage_problem}")
            failures.append(f"{name}'s glue coverage not checked")
    unexplained = [f"{n}/{m}" for n, d in documents.items() for m, body in sorted(d.get("modes", {}).items()) if body["summary"].get("unexplained_cells")]
    problems += [f"differences no rule explains in {', '.join(unexplained)}: listed in FINDINGS.md"] if unexplained else []
    print()
    for line in cost_lines({n: r.timings for n, r in results.items()}, wall_s):
        say(line)
    print()
    for line in where(output, check, sample):
        say(line)
    for problem in problems:  # loud: on stderr, the last lines a reader sees
        say(f"!!! {problem}", to=sys.stderr)
    return failures


def where(output: Path, check: bool, sample: bool = False) -> list[str]:
    """Where the reader finds what the run wrote (or, with ``--check``, what it compared)."""
    if sample:
        return [f"the sample's evidence regenerated in a temporary directory; its scenarios' entries compared with {shown(output)}"]
    if check:
        return [f"evidence, FINDINGS.md, report.html and scorecard.svg regenerated in a temporary directory and compared with {shown(output)}"]
    return [f"findings (what each framework hides): {shown(output / 'FINDINGS.md')}", f"the report to look at: {shown(output / 'report.html')}",
            f"evidence per column, every cell with its reason: {shown(output)}/<column>.json"]


def summaries(documents: dict[str, dict[str, Any]]) -> list[str]:
    """A line per column and mode: the engine's expectations met, or a column's cells equal to the engine's; returns the
    failures (the engine differing from an expectation)."""
    failures = []
    for name, document in documents.items():
        for mode, body in sorted(document.get("modes", {}).items()):
            summary = body["summary"]
            if name != REFERENCE:
                say(f"{name}/{mode}: {summary['equal_cells']}/{summary['applicable_cells']} cells equal to {compared_with(mode)[0]} "
                    f"({summary['errors']} errors, {summary['unexplained_cells']} unexplained)")
                continue
            checked = summary["scenarios"] - summary.get("no_expectation", 0)
            unchecked = [sid for sid, r in body["scenarios"].items() if r["equal"] is None]
            line = f"{name}/{mode}: {summary['equal']}/{checked} scenarios match their expectations"
            say(line + (f"; no expectation given for {', '.join(unchecked)}" if unchecked else ""))
            if summary["equal"] != checked:
                bad = [f"{sid} ({', '.join(r['mismatches']) or r['status']})" for sid, r in body["scenarios"].items() if r["equal"] is False]
                failures.append(f"handwritten differs from the expectations of {', '.join(bad)}")
    return failures


def drift(output: Path, lines: list[str]) -> None:
    """``--check``'s verdict against the output directory and what drifted, a line each."""
    say()
    say(f"--check against {shown(output)}: " + ("no drift" if not lines else f"{len(lines)} drifted:"))
    for line in lines:  # a diff is read as it is: these lines are not wrapped (--check only)
        print(f"  {printable(line, lines=True)}")


def contradicted(lines: list[str]) -> None:
    for line in lines:
        say(f"!!! reason contradicted by its record: {line}", to=sys.stderr)


def failed(failures: list[str]) -> int:
    """The exit status of a run: 1, with the failures on stderr, when anything failed."""
    if failures:
        say(to=sys.stderr)
        say("FAILED: " + "; ".join(failures), to=sys.stderr)
        return 1
    return 0


def error(message: str) -> int:
    """A bad input, found before anything ran or was written: one line on stderr, exit status 2."""
    print(f"error: {printable(message)}", file=sys.stderr)
    return 2


def rederived(output: Path, judged: int, changed: list[str], *, check: bool) -> int:
    """``--rederive``'s closing line; with ``check`` the exit status says whether anything would change."""
    if check:
        say(f"--rederive --check against {shown(output)}: " + ("no drift" if not changed else f"{len(changed)} would change: {', '.join(changed)}"))
        return 1 if changed else 0
    say(f"re-judged {judged} column documents from their stored facts; changed: {', '.join(changed) or 'nothing'}")
    return 0
