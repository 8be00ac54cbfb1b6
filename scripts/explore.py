#!/usr/bin/env python3
"""Generate scenarios from a seed, run them through the columns as one batch, and report what they found.

Every example of the corpus (harness/runner_side/explore/generate.py: seeded, valid by construction, checked by the project's
loader) runs twice in every requested column and every mode it has (wire included: the engine's model and the
frameworks' over HTTP on the runner's scripted server), one column process per column, with the hand-written engine as
the reference as in the comparison. Reported per column and mode: the scenarios that ran, the contract properties the
reference columns broke (harness/runner_side/explore/properties.py), adapter errors, undeclared races and differences no rule
explains. Each kind of finding is shrunk to a small scenario (harness/runner_side/explore/shrink.py) written under --out, ready
to be committed with an `expected` block once the defect is fixed.

Exit status: 0 when no property failed and no adapter error or undeclared race remains (differences no rule
explains are printed, not failed: they are what the search is for); 1 otherwise, or when a column could not be
measured; 2 for bad usage.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from harness.canonical_io import write_json  # noqa: E402
from harness.columns import known_columns  # noqa: E402
from harness.runner_side.cli_parser import OneLineParser  # noqa: E402
from harness.runner_side.explore.generate import write_corpus, write_scenario  # noqa: E402
from harness.runner_side.explore.search import KINDS, Batch, Finding, run_batch  # noqa: E402
from harness.runner_side.explore.shrink import shrink  # noqa: E402

FAILING = ("property", "adapter_error", "race")
MARKER = "explore.json"  # the report: an --out that holds one is an earlier exploration's, safe to replace


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    known = ", ".join(known_columns())
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--column", action="append", metavar="NAME", help=f"column to explore (repeatable; default: every column; known: {known})")
    parser.add_argument("--examples", type=int, default=100, metavar="N", help="scenarios to generate (default: 100)")
    parser.add_argument("--seed", type=int, default=1, metavar="S", help="the corpus's seed: the same seed gives the same scenarios (default: 1)")
    parser.add_argument("--out", type=Path, metavar="DIR", help="where the corpus, the shrunk scenarios and explore.json go (default: runs/explore/seed-<S>/)")
    parser.add_argument("--shrink", type=int, default=8, metavar="K",
                        help="shrink the first example of at most K kinds of finding, failures first (default: 8; 0: none)")  # fmt: skip
    args = parser.parse_args(argv)
    args.column = args.column or list(known_columns())
    unknown = [n for n in args.column if n not in known_columns()]
    if unknown:
        parser.error(f"unknown column {', '.join(unknown)}; known: {known}")
    if args.examples < 1 or args.shrink < 0:
        parser.error("--examples must be at least 1 and --shrink at least 0")
    args.out = args.out or ROOT / "runs" / "explore" / f"seed-{args.seed}"
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out}: not a directory")
    if args.out.exists() and any(args.out.iterdir()) and not _ours(args.out / MARKER):
        parser.error(f"--out {args.out}: exists and holds no {MARKER} an exploration wrote: not an earlier exploration's, so it is left alone")
    return args


def _ours(marker: Path) -> bool:
    """Whether ``marker`` is an exploration's report (its seed and examples are numbers): only then is the directory
    an earlier exploration's, whose corpus, shrunk scenarios and report are replaced (nothing else in it is touched)."""
    try:
        report = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(report, dict) and isinstance(report.get("seed"), int) and isinstance(report.get("examples"), int)


def _clear(out: Path) -> None:
    """Remove what an earlier exploration wrote into ``out``, and only that."""
    for name in ("corpus", "shrunk"):
        shutil.rmtree(out / name, ignore_errors=True)
    (out / MARKER).unlink(missing_ok=True)


def group(finding: Finding) -> tuple[str, str, str, str]:
    """What a shrunk scenario must keep of a finding: column, mode, kind and its signature with the numbers and names
    that change as the scenario shrinks (driver steps, call ids, quoted ids) taken out."""
    detail = re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "_", finding.detail)[:120] if finding.kind == "property" else ""
    return finding.column, finding.mode, finding.kind, f"{finding.signature} {detail}".strip()


def shrunk_case(first: Finding, corpus: Path, shrunk_dir: Path, scratch: Path) -> dict[str, Any]:
    """Shrink the scenario of ``first`` while the same column still shows the same kind of finding; write it."""
    key = group(first)
    document = json.loads((corpus / f"{first.scenario}.json").read_text(encoding="utf-8"))
    rounds_dir = scratch / "shrink"

    def still_fails(candidates: list[dict[str, Any]]) -> list[bool]:
        shutil.rmtree(rounds_dir, ignore_errors=True)
        for candidate in candidates:
            write_scenario(rounds_dir / "corpus", candidate)
        batch = run_batch([first.column], rounds_dir / "corpus", rounds_dir / "columns", log=lambda _: None)
        failing = {f.scenario for f in batch.findings if group(f) == key}
        return [c["id"] in failing for c in candidates]

    smallest, rounds = shrink(document, still_fails)
    name = re.sub(r"[^a-z0-9_]+", "_", f"{first.scenario}_{first.column}_{first.kind}_{first.signature}".lower()).strip("_")[:80]
    smallest = {**smallest, "id": name, "session_id": f"sess-{name}",
                "description": f"Shrunk in {rounds} rounds from {first.scenario}: {first.column}/{first.mode} {first.kind} {first.signature}."}  # fmt: skip
    path = write_scenario(shrunk_dir, smallest)
    confirmed = still_fails([smallest])[0]  # the shrunk case, once more, in the column itself
    return {"path": str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path), "rounds": rounds, "confirmed": confirmed,
            "steps": len(smallest["driver"]), "turns": len(smallest["model_script"])}  # fmt: skip


def report(batch: Batch, shrunk: dict[tuple[str, str, str, str], dict[str, Any]]) -> dict[str, Any]:
    """The exploration's findings per column and mode (counts, then each kind of finding with its examples)."""
    out: dict[str, Any] = {"unplayable": batch.unplayable, "not_measured": batch.not_measured, "columns": {}}
    for (column, mode), runs in sorted(batch.runs.items()):  # the reference always runs, and its failures always count
        entry: dict[str, Any] = {"scenarios": runs}
        for kind in KINDS:
            groups: dict[tuple[str, str, str, str], list[Finding]] = {}
            for finding in batch.of(column, mode, kind):
                groups.setdefault(group(finding), []).append(finding)
            entry[kind] = [{"signature": key[3], "scenarios": sorted({f.scenario for f in found}), "example": found[0].detail.splitlines()[0][:300],
                            **({"shrunk": shrunk[key]} if key in shrunk else {})} for key, found in groups.items()]  # fmt: skip
        out["columns"][f"{column}/{mode}"] = entry
    return out


def print_report(document: dict[str, Any], out: Path) -> None:
    for name, entry in document["columns"].items():
        counts = ", ".join(f"{sum(len(g['scenarios']) for g in entry[k])} {k.replace('_', ' ')}" for k in KINDS)
        print(f"{name}: {entry['scenarios']} scenarios; scenarios with: {counts}")
        for kind in KINDS:
            for g in entry[kind]:
                where = ""
                if "shrunk" in g:
                    small = g["shrunk"]
                    again = "confirmed" if small["confirmed"] else "NOT reproduced when run again"
                    where = f"; shrunk: {small['path']} ({small['steps']} steps, {small['turns']} turns, {again})"
                print(f"  {kind} {g['signature']}: {len(g['scenarios'])} scenarios (first {g['scenarios'][0]}){where}")
                print(f"      {g['example']}")
    if document["unplayable"]:
        print(f"not played ({len(document['unplayable'])}: a 'reused' token where the engine accepted none before it): {', '.join(document['unplayable'])}")
    for column, reason in document["not_measured"].items():
        print(f"!!! {column} was NOT MEASURED: {reason}", file=sys.stderr)
    print(f"corpus, shrunk scenarios and {MARKER}: {out}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    _clear(args.out)
    corpus, shrunk_dir = args.out / "corpus", args.out / "shrunk"
    write_json(args.out / MARKER, {"seed": args.seed, "examples": args.examples, "unfinished": True})  # marks the directory as ours at once
    write_corpus(corpus, args.seed, args.examples)
    scratch = Path(tempfile.mkdtemp(prefix="explore-"))
    try:
        print(f"seed {args.seed}: {args.examples} scenarios in {corpus}; columns: {', '.join(args.column)} (each scenario twice)", flush=True)
        batch = run_batch(args.column, corpus, scratch / "batch", log=lambda m: print(m, flush=True))
        firsts: dict[tuple[str, str, str, str], Finding] = {}
        for finding in sorted(batch.findings, key=lambda f: (KINDS.index(f.kind), f.column, f.mode, f.key)):
            firsts.setdefault(group(finding), finding)
        shrunk = {}
        for key, first in list(firsts.items())[: args.shrink]:
            print(f"shrinking {first.scenario} ({first.column}/{first.mode} {first.kind} {first.signature}) ...", flush=True)
            shrunk[key] = shrunk_case(first, corpus, shrunk_dir, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    document = {"seed": args.seed, "examples": args.examples, **report(batch, shrunk)}
    write_json(args.out / MARKER, document)
    print_report(document, args.out)
    failing = sum(len(g["scenarios"]) for e in document["columns"].values() for k in FAILING for g in e[k])
    if failing or batch.not_measured:
        print(f"FAILED: {failing} scenario runs with a property failure, an adapter error or an undeclared race" if failing
              else "FAILED: a column was not measured", file=sys.stderr)  # fmt: skip
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
