#!/usr/bin/env python3
"""What the default comparison costs, column by column: the warm run repeated, per-column medians.

Run it from the repository root after one comparison has built the environments::

    python scripts/bench_matrix.py               # 3 warm runs of the default comparison
    python scripts/bench_matrix.py --runs 5 --json /tmp/matrix.json

Each run is ``scripts/run_framework_comparison.py --output <a temporary directory>`` (every column, both
modes, the committed scenarios), one after another: the runs never share the machine with each other. Each
run's ``timings.json`` (``harness.runner_side.publish.costs``) gives every column's wall time, when it finished
(counted from the run's start: the last to finish is the critical path) and its share of the run; the table
prints their medians over the runs, and the run's own wall clock as the command's caller sees it. Every run's
evidence is compared byte for byte with the committed ``evidence/``: a run that measured something else is
said so, so a faster change that altered the evidence cannot pass for a speed-up.

The figures are the machine's and its load's: a budget is held here, never in a timed test. ``--json PATH``
writes them; that file is a timing file, not evidence.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
COMPARISON = ROOT / "scripts" / "run_framework_comparison.py"
NOT_EVIDENCE = {"timings.json"}


def one_run(output: Path) -> dict[str, Any]:
    """One warm default comparison into ``output``: its wall clock, its timings, whether its evidence is the committed."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(COMPARISON), "--output", str(output)], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"bench_matrix: the comparison exited with {done.returncode}:\n{done.stderr[-2000:]}")
    timings = json.loads((output / "timings.json").read_text(encoding="utf-8"))
    written = {p.name: p.read_bytes() for p in output.iterdir() if p.is_file() and p.name not in NOT_EVIDENCE}
    committed = ROOT / "evidence"
    differing = sorted(name for name, data in written.items() if not (committed / name).is_file() or (committed / name).read_bytes() != data)
    return {"wall_s": wall, "timings": timings, "differing": differing}


def medians(runs: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per column, the median over the runs of its wall time, finishing time, share and import time."""
    names = sorted({name for run in runs for name in run["timings"]["columns"]})
    out: dict[str, dict[str, float]] = {}
    for name in names:
        rows = [run["timings"]["columns"][name] for run in runs if name in run["timings"]["columns"]]
        out[name] = {key: statistics.median(row.get(key, 0.0) for row in rows) for key in ("total_s", "finished_at_s", "share", "import_s")}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="warm comparisons in a row (default: 3)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file (a timing file, not evidence)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-matrix-") as scratch:
        for index in range(args.runs):
            run = one_run(Path(scratch) / f"run-{index}")
            runs.append(run)
            print(f"run {index + 1}/{args.runs}: {run['wall_s']:.1f} s" + (f"; evidence differs: {', '.join(run['differing'])}" if run["differing"] else ""), flush=True)
    table = medians(runs)
    wall = statistics.median(r["wall_s"] for r in runs)
    print(f"\nbench_matrix: {args.runs} warm default comparisons, one after another; python {platform.python_version()} on "
          f"{platform.platform()}, {os.cpu_count() or 0} CPUs")
    print(f"{'column':<20} {'wall s':>7} {'finished at s':>14} {'share':>6} {'import s':>9}   (medians)")
    for name, row in sorted(table.items(), key=lambda item: (item[1]["finished_at_s"], item[0])):
        print(f"{name:<20} {row['total_s']:>7.1f} {row['finished_at_s']:>14.1f} {row['share']:>6.0%} {row['import_s']:>9.1f}")
    print(f"{'the whole run':<20} {wall:>7.1f}   (median wall clock of the command)")
    differing = sorted({name for run in runs for name in run["differing"]})
    print("evidence: byte-identical to the committed in every run" if not differing else f"evidence: DIFFERS from the committed in {', '.join(differing)}")
    if args.json:
        args.json.write_text(json.dumps({"note": "timing file: machine- and load-dependent, not evidence", "runs": runs, "medians": table,
                                         "wall_s_median": wall}, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
