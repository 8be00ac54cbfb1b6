"""Run every probe (``probes/<framework>/<scenario>.py``: ``probes/README.md``) in the pinned environment of each column
it runs at and compare its counts with that column's ``defaults`` (or ``wire``, ``mcp``) evidence, a sweep probe's with
the crash sweep's rows (``sweep.json``); exit 1 on any disagreement or failed probe.

    python scripts/check_probes.py [--evidence DIR] [FRAMEWORK | FRAMEWORK@VERSION ...]

A probe runs in its framework's column at each version its ``PINS`` names (the default column alone without ``PINS``),
and each run is compared with that column's ``<column>.json`` in ``evidence/`` (or ``--evidence DIR``, a comparison
run's ``--output``). With no argument every run is checked. ``FRAMEWORK`` (``langgraph``) selects every run of that
framework's probes, at every pin; ``FRAMEWORK@VERSION`` selects the runs at that one pin, the default pin's included
(``langgraph@0.6.11``, and ``langgraph@1.2.24`` for the default pin's runs). Each line of the output names the column
it ran in. Exit status 2 for an argument that names no framework or pin.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.columns import ROOT, known_columns  # noqa: E402
from harness.runner_side.publish.probes import Probe, ProbeError, declared_probes, disagreements, probe_runs, run_probe, selected_columns  # noqa: E402
from harness.runner_side.run.environments import column_environment  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("frameworks", nargs="*", metavar="FRAMEWORK[@VERSION]",
                        help="only these frameworks' probes, at every pin, or at one pin with @VERSION (default: all)")
    parser.add_argument("--evidence", type=Path, default=ROOT / "evidence", metavar="DIR",
                        help="where the columns' evidence is, <column>.json (default: evidence/; a run's --output to check a fresh one)")
    args = parser.parse_args(argv)
    registry = known_columns()
    try:
        chosen = selected_columns(args.frameworks, registry)
    except ValueError as error:
        print(f"check_probes: {error}", file=sys.stderr)
        return 2
    runs = probe_runs(declared_probes(registry=registry), registry, chosen)
    if not runs:
        print("check_probes: no probe found", file=sys.stderr)
        return 1
    pythons: dict[str, Path] = {}
    evidence: dict[str, dict[str, Any] | None] = {}
    for column in sorted({column for column, _ in runs}):
        pythons[column] = column_environment(registry[column], log=lambda line: print(line, file=sys.stderr)).python
        recorded = args.evidence / f"{column}.json"
        evidence[column] = json.loads(recorded.read_text(encoding="utf-8")) if recorded.exists() else None

    swept = args.evidence / "sweep.json"  # the crash sweep's rows, which a sweep probe (MODE = "sweep") is compared with
    sweep = json.loads(swept.read_text(encoding="utf-8")) if swept.exists() else None

    def check(run: tuple[str, Probe]) -> list[str]:
        column, probe = run
        if (recorded := evidence[column]) is None:
            return [f"no {column}.json in {args.evidence} to compare with"]
        if probe.mode == "sweep" and sweep is None:
            return [f"no sweep.json in {args.evidence} to compare with"]
        try:
            return disagreements(probe, run_probe(probe, pythons[column]), recorded, sweep, column)
        except ProbeError as error:
            return [str(error)]

    failed = 0
    # each probe is its own process with its own home: they run side by side, one per core, reported in order
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for (column, probe), found in zip(runs, pool.map(check, runs), strict=True):
            failed += bool(found)
            print(f"{'ok  ' if not found else 'FAIL'} {column} {probe.file} ({probe.scenario})")
            for line in found:
                print(f"     {line}")
    probes, columns = len({probe.file for _, probe in runs}), len(evidence)
    print(f"check_probes: {len(runs) - failed} of {len(runs)} probe runs agree with the evidence ({probes} probes, {columns} column{'s' if columns != 1 else ''})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
