#!/usr/bin/env python3
"""Jobs per minute of the crash sweep run here and on Ray, side by side in one run.

Run it from the repository root with the ray extra installed::

    python scripts/bench_sweep_ray.py                         # a Ray head on 127.0.0.1 with this machine's cores
    python scripts/bench_sweep_ray.py --ray HOST:PORT         # a cluster of yours (docs/sweep.md)
    python scripts/bench_sweep_ray.py --sample kill_before_effect --runs 5

One plan of the sample (``scripts/sweep.py --plan``), then ``--runs`` rounds, each the plan's jobs run once with
``scripts/sweep.py`` on a local pool of ``--workers`` column processes and once with ``--ray`` (in turn, each in a fresh
copy of the plan, so no job is skipped as finished): the two never run at the same time (a loopback head stays up, idle,
during the local runs). A round's figure is the jobs over
the whole command's wall time (the Ray run's includes connecting to the cluster). Every run's merged rows are compared
byte for byte with the first local run's: a run that measured something else is said so. The figures are the machine's
and its load's; they are no evidence and nothing here is committed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from harness.runner_side.cli_parser import OneLineParser  # noqa: E402
from harness.runner_side.explore.crash_sweep import PLAN  # noqa: E402
from harness.runner_side.explore.on_ray import ClusterError, loopback_cluster  # noqa: E402

SWEEP = ROOT / "scripts" / "sweep.py"


def timed(args: list[str], env: dict[str, str]) -> float:
    """Run ``scripts/sweep.py`` with ``args``; its wall time, or exit with what it said."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(SWEEP), *args], capture_output=True, text=True, cwd=ROOT, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"scripts/sweep.py {' '.join(args)} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return time.perf_counter() - started


def rounds(selection: list[str], address: str, env: dict[str, str], runs: int, workers: int) -> dict[str, list[float]]:
    """Plan once, then ``runs`` rounds of the plan's jobs here and on Ray; jobs per minute of each."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-sweep-ray-"))
    try:
        timed([*selection, "--plan", "--out", str(scratch / "plan"), "--workers", str(workers)], env)
        jobs = len(json.loads((scratch / "plan" / PLAN).read_text(encoding="utf-8"))["jobs"])
        print(f"{jobs} jobs planned; {runs} rounds, each here ({workers} column processes at a time) then on Ray at {address}", flush=True)
        figures: dict[str, list[float]] = {"local": [], "ray": []}
        reference = None
        for n in range(runs):
            for how, extra in (("local", ["--workers", str(workers)]), ("ray", ["--ray", address])):
                out = scratch / f"{how}-{n}"
                shutil.copytree(scratch / "plan", out)
                seconds = timed([*selection, "--out", str(out), *extra], env)
                merged = (out / "sweep.json").read_bytes()
                reference = reference or merged
                figures[how].append(jobs / seconds * 60)
                same = "same rows" if merged == reference else "ROWS DIFFER from the first local run"
                print(f"round {n + 1} {how:5}: {seconds:6.1f} s, {figures[how][-1]:6.1f} jobs/min ({same})", flush=True)
                shutil.rmtree(out)
        return figures
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ray", metavar="HOST:PORT", help="a running cluster (default: a head on 127.0.0.1 started here)")
    parser.add_argument("--sample", action="append", metavar="SCENARIO", help="committed scenarios to sweep (default: high_risk_approved)")
    parser.add_argument("--framework", action="append", metavar="NAME", help="columns to sweep (default: every swept column)")
    parser.add_argument("--runs", type=int, default=3, metavar="N", help="rounds (default: 3)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, metavar="N", help="local column processes at a time, and the head's CPUs")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.workers < 1:
        parser.error("--runs and --workers must be at least 1")
    selection = [a for s in args.sample or ["high_risk_approved"] for a in ("--sample", s)]
    selection += [a for f in args.framework or [] for a in ("--framework", f)]
    try:
        if args.ray:
            figures = rounds(selection, args.ray, dict(os.environ), args.runs, args.workers)
        else:
            with loopback_cluster(num_cpus=args.workers) as head:
                figures = rounds(selection, head.address, {**os.environ, **head.env}, args.runs, args.workers)
    except ClusterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    local, ray = statistics.median(figures["local"]), statistics.median(figures["ray"])
    ratios = [r / loc for loc, r in zip(figures["local"], figures["ray"], strict=True)]
    print(f"median jobs/min: here {local:.1f}, on Ray {ray:.1f}; Ray/here per round {', '.join(f'{x:.2f}' for x in ratios)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
