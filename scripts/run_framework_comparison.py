#!/usr/bin/env python3
"""Run the framework comparison and write (or check) its evidence.

Every requested column runs every scenario in its own sandboxed process; the
hand-written engine always runs too, because every other column is compared with its
measured observations (and it is checked against each scenario's `expected` block).

Exit status: 0 when every requested column was measured, the hand-written engine met
every expectation and, with --check, nothing drifted and every glue count is exact; 1 otherwise (the reasons are
printed); 2 for bad usage, a bad scenario file (scenarios/README.md lists what the loader
refuses, size limit included) or an --output that cannot be written or read: one line on
stderr, found before any column starts, and nothing is written.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from harness.canonical_io import as_written, dumps, write_files  # noqa: E402
from harness.columns import REFERENCE, Column, known_columns  # noqa: E402
from harness.errors import ScenarioError, printable  # noqa: E402
from harness.modes import MODES as ALL_MODES  # noqa: E402
from harness.modes import reference_modes  # noqa: E402
from harness.runner_side.check import collapse_common, diff_documents  # noqa: E402
from harness.runner_side.cli_parser import OneLineParser  # noqa: E402
from harness.runner_side.costs import cost_lines, timings_document  # noqa: E402
from harness.runner_side.evidence import (  # noqa: E402
    availability_document,
    availability_entry,
    column_document,
    handwritten_document,
    merge_modes,
    rederived,
    validation_errors,
)
from harness.runner_side.findings import render as render_findings  # noqa: E402
from harness.runner_side.judge.said import contradicted_in  # noqa: E402
from harness.runner_side.output_dir import BadOutput, diff_text, output_as_it_was, real, unwritable  # noqa: E402
from harness.runner_side.probes import declared_probes  # noqa: E402
from harness.runner_side.processes import Stopped, stop_all, stopping  # noqa: E402
from harness.runner_side.report.page import render_report  # noqa: E402
from harness.runner_side.report.scorecard import scorecard, scorecard_svg  # noqa: E402
from harness.runner_side.runner import ColumnResult, check_separation, run_column  # noqa: E402
from harness.runner_side.table import LEGEND, WIDTH  # noqa: E402
from harness.runner_side.table import compact as compact_table  # noqa: E402
from harness.runner_side.table import wide as wide_table  # noqa: E402
from harness.runner_side.users import CannotReach  # noqa: E402
from harness.runner_side.wire.server import WireServer  # noqa: E402
from harness.scenarios import SCENARIO_DIR, Scenario, load_expectations, load_scenarios, shown  # noqa: E402

MODES = {**{mode: [mode] for mode in ALL_MODES}, "both": ["defaults", "contract"], "all": list(ALL_MODES)}
COMMITTED = (ROOT / "evidence").resolve()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    known = ", ".join(known_columns())
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--framework", action="append", metavar="NAME", help=f"column to run (repeatable; default: all; known: {known})")
    parser.add_argument(
        "--mode", choices=sorted(MODES), default="all",
        help="which modes to run: defaults, contract, wire (the model over HTTP on the scripted server), both (defaults and contract) or all "
        "(default: all); the handwritten reference runs contract, and wire when wire is asked for",
    )  # fmt: skip
    parser.add_argument("--scenarios", type=Path, default=SCENARIO_DIR, help="directory of scenario files (default: scenarios/)")
    parser.add_argument(
        "--output", type=Path,
        help="evidence directory (default: evidence/ for the committed scenarios; runs/<scenarios dir name>/, git-ignored, for --scenarios)",
    )  # fmt: skip
    parser.add_argument("--wide", action="store_true", help="print the full side-by-side table (one column per column and mode) instead of the compact one")
    parser.add_argument(
        "--check", action="store_true",
        help="regenerate into a temporary directory, running every scenario twice, and report what drifted from --output and what differed between "
        "the two runs; with the committed scenarios, the second runs of a column with both modes are line-traced to check its glue count",
    )  # fmt: skip
    parser.add_argument(
        "--rederive", action="store_true",
        help="run no column: judge the evidence in --output again from the facts it stores (reasons, cells, summaries, FINDINGS.md, the "
        "report and the scorecard), in seconds; with --check, report what would change and write nothing",
    )  # fmt: skip
    parser.add_argument("--allow-not-measured", action="store_true", help="exit 0 even when a requested column could not be measured")
    parser.add_argument("--keep-scratch", action="store_true", help="keep every column's scratch files (SQLite, logs) and print where")
    args = parser.parse_args(argv)
    names = args.framework or ["all"]
    unknown = [n for n in names if n != "all" and n not in known_columns()]
    if unknown:
        parser.error(f"unknown framework {', '.join(unknown)}; known: {known}")
    args.columns = list(known_columns()) if "all" in names else list(dict.fromkeys(names))
    scenarios = real(args.scenarios)
    own = scenarios != SCENARIO_DIR.resolve()
    args.whole = not own  # the committed scenario set: an output of it is kept whole across partial runs
    if args.output is None:
        args.output = ROOT / "runs" / scenarios.name if own else COMMITTED
    elif own and real(args.output) == COMMITTED:
        parser.error("the committed evidence holds the committed scenarios only: give your scenarios another --output (default: runs/<name>/)")
    output = real(args.output)
    if output == scenarios:  # only the top level's *.json are scenarios: an output below its own scenarios is fine
        parser.error(f"--output {shown(args.output)}: must not be the scenarios directory: the evidence files would be read as scenarios next time")
    if output.is_relative_to(SCENARIO_DIR.resolve()):
        parser.error(f"--output {shown(args.output)}: must not be in the committed {shown(SCENARIO_DIR)}/, which holds scenario files only")
    problem = unwritable(args.output)
    if problem:
        parser.error(f"--output {shown(args.output)}: {problem}")
    return args


def run_all(
    columns: list[Column], modes: list[str], scenarios_dir: Path, scratch: Path, count: int, twice: bool, trace_glue: bool = False
) -> dict[str, ColumnResult]:
    """Columns run in parallel, one process each; a progress line as each one ends. With ``twice``
    every scenario runs twice in every column, and any difference is an undeclared race; with ``trace_glue`` too, the
    second runs of each column with both modes are line-traced to check its glue count (scripts/check_glue_coverage.py
    does the same alone): coverage of the whole count needs the committed scenarios, so only they are traced."""

    started = time.perf_counter()

    def one(column: Column) -> ColumnResult:
        column_modes = reference_modes(modes) if column.name == REFERENCE else modes
        planned, done = [count], [0]

        def log(message: str) -> None:
            say(f"[{column.name}] {message}")

        def on_progress(line: str) -> None:  # the column's plan, then one line per finished scenario (or sub-case)
            if line.startswith("plan "):
                planned[0] = int(line.split()[1])
                return
            done[0] += 1
            total = f"{planned[0]}" if done[0] <= planned[0] else f"{planned[0]}+"  # forced orderings (sub-cases) add runs
            say(f"[{column.name}] {done[0]}/{total} {line} ({time.perf_counter() - started:.0f} s)")

        began = time.perf_counter() - started
        result = run_column(column, column_modes, scenarios_dir, scratch, scenario_count=count, twice=twice, trace_glue=trace_glue, log=log,
                            on_progress=on_progress, wire=wire)
        result.timings.update(started_at_s=began, finished_at_s=time.perf_counter() - started)
        if not stopping():  # a stopped run says so once, in main
            say(f"[{column.name}] {progress(result)}")
        return result

    # The scripted OpenAI-compatible server of the wire mode: the runner's, shared by every column (each its own token).
    with WireServer(load_scenarios(scenarios_dir)) as wire, ThreadPoolExecutor(max_workers=max(1, len(columns))) as pool:
        results = {r.column.name: r for r in pool.map(one, columns)}  # every column at once: the machine, not a cap, decides
    if wire.errors:
        raise AssertionError(f"harness bug: the scripted wire server raised: {wire.errors[:3]}")
    return results


def say(line: str) -> None:
    """Print a line for a reader at a terminal: paths under the repository relative to it, wrapped at 100 characters, scenario
    and column text ``printable``."""
    print("\n".join(textwrap.wrap(printable(line.replace(f"{ROOT}/", ""), lines=True), WIDTH, subsequent_indent="    ", break_on_hyphens=False)), flush=True)


def progress(result: ColumnResult) -> str:
    if result.status != "measured":
        return f"NOT MEASURED: {result.reason}"
    parts = [f"{mode}: {len(records)} scenarios" for mode, records in sorted(result.modes.items())]
    network = f"; refused network: {', '.join(result.network.refused)}" if result.network.refused else ""
    return f"measured ({'; '.join(parts)}) in {result.timings.get('total_s', 0):.1f} s{network}"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:  # every bad input is found here, before any column process starts
        scenarios = load_scenarios(args.scenarios)
        expectations = load_expectations(args.scenarios)
        before = output_as_it_was(args.output)
        check_separation()  # as root every column runs under a user of its own, who must reach the repository
    except (ScenarioError, BadOutput, CannotReach) as exc:
        print(f"error: {printable(str(exc))}", file=sys.stderr)
        return 2
    if args.rederive:
        return rederive(args, scenarios, before)
    scratch = Path(tempfile.mkdtemp(prefix="framework-comparison-"))
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _stop)
    try:
        return compare(args, scenarios, expectations, before, scratch)
    except Stopped as stop:
        stop_all()
        shutil.rmtree(scratch, ignore_errors=True)
        print(f"stopped by {stop}: every column process killed, scratch removed, nothing written to {args.output}", file=sys.stderr)
        return 128 + stop.signum
    finally:
        if args.keep_scratch and scratch.exists():
            print(f"scratch kept in {scratch}")
        elif scratch.exists():
            shutil.rmtree(scratch, ignore_errors=True)


def _stop(signum: int, _frame: object) -> None:
    """A Ctrl-C or SIGTERM: kill every column process group now (the threads waiting on them return), then unwind."""
    for each in (signal.SIGINT, signal.SIGTERM):
        signal.signal(each, signal.SIG_IGN)  # a second signal must not interrupt the cleanup
    stop_all()
    raise Stopped(signum)


def compare(args: argparse.Namespace, scenarios: list[Scenario], expectations: dict[str, Any], before: dict[str, Any], scratch: Path) -> int:
    """Run the columns, write (or check) the evidence and FINDINGS.md (``before``: the output's files as they were),
    print the table and the closing lines."""
    files = {s.id: s.file for s in scenarios}
    columns = [known_columns()[n] for n in dict.fromkeys([REFERENCE, *args.columns])]
    target = scratch / "evidence" if args.check else args.output
    run_started = time.perf_counter()
    results = run_all(columns, MODES[args.mode], args.scenarios, scratch / "columns", len(scenarios), twice=args.check, trace_glue=args.check and args.whole)
    if stopping():
        raise Stopped(signal.SIGINT)
    reference = results[REFERENCE]
    documents: dict[str, dict[str, Any]] = {}
    for name, result in results.items():
        if name == REFERENCE:
            documents[name] = handwritten_document(result, expectations, files)
        else:
            documents[name] = column_document(result, reference, {s.id: s for s in scenarios})
    shown = dict(documents)  # what this run measured: the table and the summaries show only that
    if args.whole:  # evidence of the committed scenarios stays whole: keep each column's modes not run (the engine's wire too)
        documents = {n: merge_modes(d, before.get(f"{n}.json")) for n, d in documents.items()}
    previous = before.get("availability.json") or {"columns": {}}
    entries = {n: e for n, e in previous["columns"].items() if n in known_columns()}
    entries.update({n: availability_entry(r) for n, r in results.items()})
    for name, document in documents.items():  # a column whose other mode was kept from the committed file has both
        if name in entries and document.get("status") == "measured":
            entries[name]["modes"] = sorted(document["modes"])
    documents_to_write = {**{f"{n}.json": d for n, d in documents.items()}, "availability.json": availability_document(entries)}
    for file_name, document in documents_to_write.items():  # every file is made before any is written
        errors = validation_errors(document)
        if errors:
            raise AssertionError(f"harness bug: {file_name} breaks the evidence schema: {errors[:3]}")
    findings = findings_text(documents, before if args.whole else {})
    views = teaching_views(documents, before if args.whole else {}, scenarios)  # --check compares them below
    wall_s = time.perf_counter() - run_started
    timings = timings_document({n: r.timings for n, r in results.items()}, wall_s)
    write_files(target, {**documents_to_write, FINDINGS: findings, **views, "timings.json": timings})  # each replaced whole or not at all

    races = [race for result in results.values() for race in result.undeclared_races]
    print()
    print(wide_table(shown) + "\n" + "\n".join(LEGEND[-2:]) if args.wide else compact_table(shown, races))
    failures = report(args, results, shown, wall_s) + _contradicted(target, args.scenarios, list(shown))
    if args.check:
        drift = collapse_common({name: diff_documents(name, before.get(name), document) for name, document in documents_to_write.items()})
        findings_diff = diff_text(FINDINGS, args.output / FINDINGS, findings)
        drift += [f"{name} differs from what the evidence generates{':' if name == FINDINGS else ''}" for name, text in {FINDINGS: findings, **views}.items()
                  if _read(args.output / name) != text]
        print(f"\n--check against {_shown(args.output)}: " + ("no drift" if not drift else f"{len(drift)} drifted:"))
        for line in drift + findings_diff:
            print(f"  {printable(line, lines=True)}")
        failures += [f"evidence drifted ({len(drift)} change{'s' if len(drift) > 1 else ''})"] if drift else []
    if failures:
        print("\nFAILED: " + "; ".join(failures), file=sys.stderr)
        return 1
    return 0


def _contradicted(evidence: Path, scenarios: Path, columns: list[str]) -> list[str]:
    """The sentence check of the evidence just written: every statement a reason makes about a trace (``judge.said``)
    against the record it was made from. One it contradicts is a rule's defect, never a finding: printed, and a failure."""
    _, contradicted = contradicted_in(evidence, scenarios, [n for n in columns if n != REFERENCE])
    for line in contradicted:
        print(f"!!! reason contradicted by its record: {printable(line, lines=True)}", file=sys.stderr)
    return [f"{len(contradicted)} statements of reasons contradicted by their records"] if contradicted else []


def rederive(args: argparse.Namespace, scenarios: list[Scenario], before: dict[str, Any]) -> int:
    """``--rederive``: every column document of ``--output`` judged again from its stored facts, and FINDINGS.md, the
    report and the scorecard made from them; written (each file replaced whole, or not at all), or with ``--check``
    compared with the files as they are."""
    reference = before.get(f"{REFERENCE}.json")
    if reference is None:
        print(f"error: {_shown(args.output)} holds no {REFERENCE}.json: nothing to judge against", file=sys.stderr)
        return 2
    by_id = {s.id: s for s in scenarios}
    missing = sorted({r.get("scenario", key) for d in before.values() if "framework" in d for b in d.get("modes", {}).values()
                      for key, r in b["scenarios"].items()} - set(by_id))
    if missing:
        print(f"error: the evidence names scenarios {shown(args.scenarios)}/ does not hold: {', '.join(missing[:5])}", file=sys.stderr)
        return 2
    documents = {name.removesuffix(".json"): rederived(d, reference, by_id) if d.get("framework") != REFERENCE else d
                 for name, d in before.items() if "framework" in d}
    files = {f"{n}.json": as_written(dumps(d)) for n, d in documents.items()}
    files |= {FINDINGS: findings_text(documents, {}), **teaching_views(documents, {}, scenarios)}
    changed = [name for name, text in files.items() if _read(args.output / name) != text]
    if args.check:
        print(f"--rederive --check against {_shown(args.output)}: " + ("no drift" if not changed else f"{len(changed)} would change: {', '.join(changed)}"))
        return 1 if changed else 0
    write_files(args.output, {n: files[n] for n in changed})
    print(f"re-judged {len(documents) - 1} column documents from their stored facts; changed: {', '.join(changed) or 'nothing'}")
    return 0


def _shown(path: Path) -> str:
    """A path as the reader typed it: relative to where they stand when it is below, else absolute."""
    path = path.resolve()
    return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else str(path)


def report(args: argparse.Namespace, results: dict[str, ColumnResult], documents: dict[str, dict[str, Any]], wall_s: float) -> list[str]:
    """Print the summaries, what the run cost (``wall_s`` in all), where the findings and evidence are, and every error
    with its reason (the scenarios that could not be measured, the undeclared races, the columns not measured); return
    what makes the run fail."""
    print()
    failures = _summaries(documents)
    problems = [f"{name}/{mode}/{key} could not be measured: {record['error']}" for name, document in documents.items()
                for mode, body in sorted(document.get("modes", {}).items()) for key, record in body["scenarios"].items() if record["status"] == "error"]  # fmt: skip
    failures += [f"{len(problems)} scenario runs could not be measured"] if problems else []
    races = [race for result in results.values() for race in result.undeclared_races]
    problems += [f"undeclared race: {race}" for race in races]
    failures += [f"{len(races)} undeclared races"] if races else []
    for name, result in results.items():
        if result.status != "measured":
            problems.append(f"{name} was NOT MEASURED: {result.reason}")
            failures += [f"{name} not measured"] if not args.allow_not_measured or name == REFERENCE else []
        if result.glue_coverage is not None:  # --check: the second runs were line-traced against the column's glue count
            print(result.glue_coverage.report())
            failures += [] if result.glue_coverage.ok else [f"{name}'s glue count is not exact"]
        if result.glue_coverage_problem:
            problems.append(f"{name}: glue coverage: {result.glue_coverage_problem}")
            failures.append(f"{name}'s glue coverage not checked")
    unexplained = [f"{n}/{m}" for n, d in documents.items() for m, body in sorted(d.get("modes", {}).items()) if body["summary"].get("unexplained_cells")]
    problems += [f"differences no rule explains in {', '.join(unexplained)}: listed in FINDINGS.md"] if unexplained else []
    print()
    print("\n".join(cost_lines({n: r.timings for n, r in results.items()}, wall_s)))
    print()
    if args.check:
        print(f"evidence, FINDINGS.md, {REPORT} and {SCORECARD} regenerated in a temporary directory and compared with {_shown(args.output)}")
    else:
        print(f"findings (what each framework hides): {_shown(args.output / FINDINGS)}; the report to look at: {_shown(args.output / REPORT)}")
        print(f"evidence per column, every cell with its reason: {_shown(args.output)}/<column>.json")
    for problem in problems:  # loud: on stderr, the last lines a reader sees
        print("\n".join(textwrap.wrap(printable(f"!!! {problem}", lines=True), WIDTH, subsequent_indent="    ")), file=sys.stderr)
    return failures


def _summaries(documents: dict[str, dict[str, Any]]) -> list[str]:
    failures = []
    for name, document in documents.items():
        for mode, body in sorted(document.get("modes", {}).items()):
            summary = body["summary"]
            if name == REFERENCE:
                checked = summary["scenarios"] - summary.get("no_expectation", 0)
                unchecked = [sid for sid, r in body["scenarios"].items() if r["equal"] is None]
                line = f"{name}/{mode}: {summary['equal']}/{checked} scenarios match their expectations"
                line += f"; no expectation given for {', '.join(unchecked)}" if unchecked else ""
                print("\n".join(textwrap.wrap(line, WIDTH, subsequent_indent="    ")))
                if summary["equal"] != checked:
                    bad = [f"{sid} ({', '.join(r['mismatches']) or r['status']})" for sid, r in body["scenarios"].items() if r["equal"] is False]
                    failures.append(f"handwritten differs from the expectations of {', '.join(bad)}")
            else:
                print(f"{name}/{mode}: {summary['equal_cells']}/{summary['applicable_cells']} cells equal to handwritten "
                      f"({summary['errors']} errors, {summary['unexplained_cells']} unexplained)")
    return failures


FINDINGS = "FINDINGS.md"


def findings_text(documents: dict[str, dict[str, Any]], kept: dict[str, dict[str, Any] | None]) -> str:
    """FINDINGS.md from this run's documents and, from ``kept`` (the output's files as they were; empty for a run of
    one's own scenarios, whose FINDINGS.md holds this run only), the documents of the columns this run did not measure;
    as it is written (``as_written``), so that --check compares it with the file as it is."""
    everything = {name.removesuffix(".json"): d for name, d in kept.items() if d and "framework" in d}
    return as_written(render_findings({**everything, **documents}, declared_probes()))


REPORT, SCORECARD = "report.html", "scorecard.svg"


def teaching_views(documents: dict[str, dict[str, Any]], kept: dict[str, dict[str, Any] | None], scenarios: list[Scenario]) -> dict[str, str]:
    """The texts of ``report.html`` and ``scorecard.svg`` (``harness.runner_side.report``) by file name, from the same
    documents as FINDINGS.md, as they are written."""
    everything = {name.removesuffix(".json"): d for name, d in kept.items() if d and "framework" in d}
    merged, by_id = {**everything, **documents}, {s.id: s for s in scenarios}
    return {REPORT: as_written(render_report(merged, by_id)), SCORECARD: as_written(scorecard_svg(scorecard(merged, by_id)))}


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.exists() else None


if __name__ == "__main__":
    sys.exit(main())
