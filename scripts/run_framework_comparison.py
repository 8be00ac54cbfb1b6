#!/usr/bin/env python3
"""Run the framework comparison and write (or check) its evidence.

Every requested column runs every scenario in its own sandboxed process; the
hand-written engine always runs too, because every other column is compared with its
measured observations (and it is checked against each scenario's `expected` block).

Exit status: 0 when every requested column was measured, the hand-written engine met
every expectation and, with --check, nothing drifted; 1 otherwise (the reasons are
printed); 2 for bad usage or bad scenario files.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from harness.canonical_io import write_json  # noqa: E402
from harness.columns import REFERENCE, Column, known_columns  # noqa: E402
from harness.errors import ScenarioError  # noqa: E402
from harness.runner_side.check import diff_documents  # noqa: E402
from harness.runner_side.evidence import (  # noqa: E402
    availability_document,
    availability_entry,
    column_document,
    handwritten_document,
    validation_errors,
)
from harness.runner_side.findings import render as render_findings  # noqa: E402
from harness.runner_side.probes import declared_probes  # noqa: E402
from harness.runner_side.runner import ColumnResult, run_column  # noqa: E402
from harness.scenarios import SCENARIO_DIR, load_expectations, load_scenarios  # noqa: E402

MODES = {"defaults": ["defaults"], "contract": ["contract"], "both": ["defaults", "contract"]}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    known = ", ".join(known_columns())
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--framework", action="append", metavar="NAME", help=f"column to run (repeatable; default: all; known: {known})")
    parser.add_argument("--mode", choices=sorted(MODES), default="both", help="which modes of the third-party columns to run (default: both)")
    parser.add_argument("--scenarios", type=Path, default=SCENARIO_DIR, help="directory of scenario files (default: scenarios/)")
    parser.add_argument("--output", type=Path, default=ROOT / "evidence", help="evidence directory (default: evidence/)")
    parser.add_argument(
        "--check", action="store_true",
        help="regenerate into a temporary directory, running every scenario twice, and report what drifted from --output and what differed between the two runs",
    )  # fmt: skip
    parser.add_argument("--allow-not-measured", action="store_true", help="exit 0 even when a requested column could not be measured")
    parser.add_argument("--keep-scratch", action="store_true", help="keep every column's scratch files (SQLite, logs) and print where")
    args = parser.parse_args(argv)
    names = args.framework or ["all"]
    unknown = [n for n in names if n != "all" and n not in known_columns()]
    if unknown:
        parser.error(f"unknown framework {', '.join(unknown)}; known: {known}")
    args.columns = list(known_columns()) if "all" in names else list(dict.fromkeys(names))
    return args


def run_all(columns: list[Column], modes: list[str], scenarios_dir: Path, scratch: Path, count: int, twice: bool) -> dict[str, ColumnResult]:
    """Columns run in parallel, one process each; a progress line as each one ends. With ``twice``
    every scenario runs twice in every column, and any difference is an undeclared race."""

    def one(column: Column) -> ColumnResult:
        column_modes = ["contract"] if column.name == REFERENCE else modes
        log = lambda m: print(f"[{column.name}] {m}", flush=True)  # noqa: E731
        result = run_column(column, column_modes, scenarios_dir, scratch, scenario_count=count, twice=twice, log=log)
        print(f"[{column.name}] {progress(result)}", flush=True)
        return result

    with ThreadPoolExecutor(max_workers=max(1, min(len(columns), 4))) as pool:
        return {r.column.name: r for r in pool.map(one, columns)}


def progress(result: ColumnResult) -> str:
    if result.status != "measured":
        return f"NOT MEASURED: {result.reason}"
    parts = [f"{mode}: {len(records)} scenarios" for mode, records in sorted(result.modes.items())]
    network = f"; refused network: {', '.join(result.network)}" if result.network else ""
    return f"measured ({'; '.join(parts)}) in {result.timings.get('total_s', 0):.1f} s{network}"


def side_by_side(documents: dict[str, dict[str, Any]]) -> str:
    """One row per scenario, one column per (column, mode): '=' when every applicable cell is equal."""
    import pandas as pd

    table: dict[str, dict[str, str]] = {}
    for name, document in documents.items():
        for mode, body in document.get("modes", {}).items():
            label = f"{name}/{mode}" if name != REFERENCE else f"{name} (vs expected)"
            for scenario_id, record in body["scenarios"].items():
                table.setdefault(label, {})[scenario_id] = _mark(record)
        if document.get("status") != "measured":
            table[f"{name}"] = {}
    rows = sorted({scenario_id for marks in table.values() for scenario_id in marks})
    frame = pd.DataFrame({label: [marks.get(r, "NOT MEASURED" if not marks else "-") for r in rows] for label, marks in table.items()}, index=rows)
    return frame.to_string()


# Short names keep the table readable; the legend is printed under it.
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
}
LEGEND = (
    "= every applicable observable equals the hand-written engine's (for handwritten: its scenario's expected block); "
    "≠ lists those that differ: " + ", ".join(f"{short}={name}" for name, short in SHORT.items() if short != name)
    + "; - not run by this column (a sub-case <scenario>@<schedule> is an ordering another column forces on its race)"
)


def _mark(record: dict[str, Any]) -> str:
    if record["status"] == "error":
        return "ERROR"
    if "mismatches" in record:
        return "=" if record["equal"] else "≠ " + ",".join(SHORT[n] for n in record["mismatches"])
    differing = [SHORT[n] for n, c in record["columns"].items() if c["equal"] is False]
    return "=" if not differing else "≠ " + ",".join(differing)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        scenarios = load_scenarios(args.scenarios)
        expectations = load_expectations(args.scenarios)
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    files = {s.id: s.file for s in scenarios}
    columns = [known_columns()[n] for n in dict.fromkeys([REFERENCE, *args.columns])]
    scratch = Path(tempfile.mkdtemp(prefix="framework-comparison-"))
    target = scratch / "evidence" if args.check else args.output
    try:
        results = run_all(columns, MODES[args.mode], args.scenarios, scratch / "columns", len(scenarios), twice=args.check)
    finally:
        if args.keep_scratch:
            print(f"scratch kept in {scratch}")

    reference = results[REFERENCE]
    documents: dict[str, dict[str, Any]] = {}
    for name, result in results.items():
        if name == REFERENCE:
            documents[name] = handwritten_document(result, expectations, files)
        else:
            documents[name] = column_document(result, reference, {s.id: s for s in scenarios})
    previous = _read(args.output / "availability.json") or {"columns": {}}
    entries = {n: e for n, e in previous["columns"].items() if n in known_columns()}
    entries.update({n: availability_entry(r) for n, r in results.items()})
    documents_to_write = {**{f"{n}.json": d for n, d in documents.items()}, "availability.json": availability_document(entries)}
    for file_name, document in documents_to_write.items():
        errors = validation_errors(document)
        if errors:
            raise AssertionError(f"harness bug: {file_name} breaks the evidence schema: {errors[:3]}")
        write_json(target / file_name, document)
    findings = findings_text(documents, args.output)
    (target / FINDINGS).write_text(findings, encoding="utf-8")
    timings = {n: r.timings for n, r in results.items()}
    (target / "timings.json").write_text(json.dumps(timings, indent=2, sort_keys=True) + "\n", encoding="utf-8")

    print()
    print(side_by_side(documents))
    print(LEGEND)
    failures = report(args, results, documents)
    if args.check:
        drift = [line for name, document in documents_to_write.items() for line in diff_documents(name, _read(args.output / name), document)]
        findings_diff = diff_text(FINDINGS, args.output / FINDINGS, findings)
        drift += [f"{FINDINGS} differs from what the evidence generates:"] if findings_diff else []
        print(f"\n--check against {args.output}: " + ("no drift" if not drift else f"{len(drift)} drifted:"))
        for line in drift + findings_diff:
            print(f"  {line}")
        failures += [f"evidence drifted ({len(drift)} changes)"] if drift else []
    if not args.keep_scratch:
        shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        print("\nFAILED: " + "; ".join(failures), file=sys.stderr)
        return 1
    return 0


def report(args: argparse.Namespace, results: dict[str, ColumnResult], documents: dict[str, dict[str, Any]]) -> list[str]:
    """Print the summaries, the scenarios that could not be measured and the undeclared races;
    return what makes the run fail."""
    failures = []
    print()
    for name, document in documents.items():
        for mode, body in sorted(document.get("modes", {}).items()):
            summary = body["summary"]
            if name == REFERENCE:
                print(f"{name}: {summary['equal']}/{summary['scenarios']} scenarios match their expectations")
                if summary["equal"] != summary["scenarios"]:
                    bad = [sid for sid, r in body["scenarios"].items() if not r["equal"]]
                    failures.append(f"handwritten differs from the expectations of {', '.join(bad)}")
            else:
                print(f"{name}/{mode}: {summary['equal_cells']}/{summary['applicable_cells']} applicable cells equal to handwritten "
                      f"({summary['errors']} errors, {summary['unexplained_cells']} differences no rule explains)")
    errored = [(name, mode, key, record["error"]) for name, document in documents.items()
               for mode, body in sorted(document.get("modes", {}).items()) for key, record in body["scenarios"].items() if record["status"] == "error"]  # fmt: skip
    for name, mode, key, error in errored:
        print(f"\n!!! {name}/{mode}/{key} could not be measured: {error}", file=sys.stderr)
    if errored:
        failures.append(f"{len(errored)} scenario runs could not be measured")
    races = [race for result in results.values() for race in result.undeclared_races]
    for race in races:
        print(f"\n!!! undeclared race: {race}", file=sys.stderr)
    if races:
        failures.append(f"{len(races)} undeclared races")
    for name, result in results.items():
        if result.status != "measured":
            print(f"\n!!! {name} was NOT MEASURED: {result.reason}", file=sys.stderr)
            if not args.allow_not_measured or name == REFERENCE:
                failures.append(f"{name} not measured")
    where = ("evidence and FINDINGS.md regenerated in a temporary directory (--check) and compared with the committed ones" if args.check
             else f"evidence written to {args.output}; what each framework hides: {args.output / FINDINGS}")
    print(f"\n{where}")
    _warn_unexplained(documents)
    return failures


FINDINGS = "FINDINGS.md"


def findings_text(documents: dict[str, dict[str, Any]], committed: Path) -> str:
    """FINDINGS.md from this run's documents and, for a column this run did not measure, its committed evidence."""
    everything = {p.stem: d for p in sorted(committed.glob("*.json")) if (d := _read(p)) and "framework" in d}
    return render_findings({**everything, **documents}, declared_probes())


def diff_text(name: str, committed: Path, fresh: str) -> list[str]:
    """The first lines of a unified diff between a committed text file and a fresh one (empty when equal)."""
    import difflib

    old = committed.read_text(encoding="utf-8") if committed.exists() else ""
    changed = list(difflib.unified_diff(old.splitlines(), fresh.splitlines(), f"committed {name}", f"fresh {name}", lineterm="", n=0))
    return [f"{name}: {line}" for line in changed[:40]] + ([f"{name}: … {len(changed) - 40} more diff lines"] if len(changed) > 40 else [])


def _warn_unexplained(documents: dict[str, dict[str, Any]]) -> None:
    """Say loudly where a difference has no rule behind it (counted, listed in FINDINGS.md, never hidden)."""
    unexplained = [f"{n}/{m}" for n, d in documents.items() for m, body in sorted(d.get("modes", {}).items()) if body["summary"].get("unexplained_cells")]
    if unexplained:
        print(f"\n!!! differences no rule explains in {', '.join(unexplained)}: listed in FINDINGS.md, \"Differences no rule explains\"", file=sys.stderr)


def _read(path: Path) -> dict[str, Any] | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


if __name__ == "__main__":
    sys.exit(main())
