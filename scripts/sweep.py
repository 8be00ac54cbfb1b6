#!/usr/bin/env python3
"""The crash sweep: a kill at every kill point each column passes, and what it did to the side effects and approvals.

Each swept scenario (a committed one with a side effect or an approval) is played uninterrupted in every column and
mode of the selection, recording every kill point it passes; each becomes a job: the scenario with one kill there, one
resume in a fresh process, then its remaining steps (harness/runner_side/explore/jobs.py). A job's row counts the
calls whose effects exceed the column's own uninterrupted runs, approvals asked again after the kill, and runs stuck
(ended in an error or a crash where no uninterrupted run did). docs/sweep.md says how to read evidence/sweep.json.

  python scripts/sweep.py                      plan, run every job, merge into evidence/sweep.json
  python scripts/sweep.py --plan --out DIR     write DIR/plan.json and the job scenarios only
  python scripts/sweep.py --shard 2/3 --out DIR
  python scripts/sweep.py --merge DIR... [--output FILE]
  python scripts/sweep.py --ray HOST:PORT [...]   the jobs on a Ray cluster (the ray extra; docs/sweep.md)
  python scripts/sweep.py --check --sample SCENARIO...   CI: those rows again (each job twice), as committed

Exit status: 0; 1 when a column could not be measured, a job is missing or a checked row drifted; 2 for bad usage or a
Ray cluster this process cannot join as a driver.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from harness import columns as registry  # noqa: E402
from harness.canonical_io import write_json  # noqa: E402
from harness.errors import HarnessError, printable  # noqa: E402
from harness.runner_side.cli_parser import OneLineParser  # noqa: E402
from harness.runner_side.explore.crash_sweep import JOBS, PLAN, Cluster, make_plan, merge, run_jobs, select  # noqa: E402
from harness.runner_side.explore.jobs import SWEPT_MODES, swept  # noqa: E402
from harness.runner_side.run.runner import check_separation  # noqa: E402
from harness.scenarios import SCENARIO_DIR, load_scenarios  # noqa: E402

SWEEP = ROOT / "evidence" / "sweep.json"
OUT = ROOT / "runs" / "sweep"
LEFT_OUT = ("handwritten_mcp",)  # the engine behind the project's MCP server: its tools die in the server's process, not the worker's


def swept_columns() -> list[str]:
    """Every column at its default pin but the MCP reference."""
    return [name for name, column in registry.known_columns().items() if column.pin is None and name not in LEFT_OUT]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--framework", action="append", metavar="NAME", help=f"column to sweep (repeatable; default: {', '.join(swept_columns())})")
    parser.add_argument("--mode", action="append", choices=SWEPT_MODES, help="mode to sweep (repeatable; default: both)")
    parser.add_argument("--plan", action="store_true", help="write the plan (DIR/plan.json, the job scenarios) and stop")
    parser.add_argument("--shard", metavar="I/N", help="run the I-th of N slices of the jobs of the plan in DIR (plan first, with --plan)")
    parser.add_argument("--out", type=Path, default=OUT, metavar="DIR", help="the sweep's directory (default: runs/sweep/)")
    parser.add_argument("--merge", type=Path, nargs="+", metavar="DIR", help="merge the finished jobs of these directories into --output")
    parser.add_argument("--output", type=Path, metavar="FILE",
                        help="the merged rows (default: evidence/sweep.json for the whole sweep, DIR/sweep.json for a part of it)")  # fmt: skip
    parser.add_argument("--check", action="store_true", help="sweep into a temporary directory and compare the rows with --output; write nothing")
    parser.add_argument("--sample", action="append", metavar="SCENARIO", help="sweep only these committed scenarios (repeatable)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="column processes at a time here (default: the cores; with --ray, for the plan only)")  # fmt: skip
    parser.add_argument("--ray", metavar="HOST:PORT", help="run the jobs on the Ray cluster at this address, one task per column process (plan here)")
    args = parser.parse_args(argv)
    known = swept_columns()
    unknown = [n for n in args.framework or () if n not in known]
    if unknown:
        parser.error(f"unknown framework {', '.join(unknown)}; swept: {', '.join(known)}")
    args.columns = sorted(set(args.framework or known))
    args.modes = sorted(set(args.mode or SWEPT_MODES))
    if args.shard is not None:
        i, _, n = args.shard.partition("/")
        if not (i.isdigit() and n.isdigit() and 1 <= int(i) <= int(n)):
            parser.error(f"--shard {args.shard}: give I/N with 1 <= I <= N")
        args.shard = (int(i), int(n))
    refuse_combinations(parser, args)
    return args


def refuse_combinations(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """One line and exit 2 for options that cannot go together or name what is not there."""
    committed = {p.stem for p in SCENARIO_DIR.glob("*.json") if p.name != "scenario.schema.json"}
    if missing := sorted(set(args.sample or ()) - committed):
        parser.error(f"--sample: no committed scenario {', '.join(missing)}")
    if args.merge and (args.plan or args.shard or args.check):
        parser.error("--merge goes alone (with --output)")
    if unplanned := [str(d) for d in args.merge or () if not (d / PLAN).is_file()]:
        parser.error(f"--merge {unplanned[0]}: holds no {PLAN}: not a sweep's directory")
    if args.shard and not (args.out / PLAN).is_file():
        parser.error(f"--shard: {args.out} holds no {PLAN}: plan once (--plan --out DIR), then run each shard on that plan")
    head = re.fullmatch(r"([\w.-]+|\[[0-9a-fA-F:.]+\]):(\d{1,5})", args.ray or "")
    if args.ray is not None and not (head and 1 <= int(head[2]) <= 65535):
        parser.error(f"--ray {args.ray}: give the head's HOST:PORT (the address ray start --head printed), no scheme")
    if args.ray is not None and (args.plan or args.merge):
        parser.error("--ray runs jobs: not with --plan or --merge")
    if args.ray is not None and importlib.util.find_spec("ray") is None:
        parser.error("--ray needs the ray extra: pip install -e '.[ray]'")
    if args.shard and args.plan:
        parser.error("--shard runs a recorded plan: plan first, with --plan alone")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.out.exists() and (not args.out.is_dir() or (any(args.out.iterdir()) and not (args.out / PLAN).is_file())):
        parser.error(f"--out {args.out}: exists and holds no {PLAN} a sweep wrote: not a sweep's directory, so it is left alone")


def default_output(plan: dict[str, Any], directory: Path) -> Path:
    """``evidence/sweep.json`` for a plan of the whole sweep (every swept column, both modes, every swept scenario), else
    ``<directory>/sweep.json``: a part never replaces the committed rows."""
    whole = sorted([*plan["columns"], *plan["not_measured"]]) == sorted(swept_columns()) and plan["modes"] == sorted(SWEPT_MODES)
    swept_ids = sorted(s.id for s in load_scenarios(SCENARIO_DIR) if swept(s))
    return SWEEP if whole and plan["scenarios"] == swept_ids else directory / "sweep.json"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.merge:
        return write_merged(args.merge, args.output)  # None: default_output of the plan merged
    try:
        load_scenarios(SCENARIO_DIR)
        check_separation()
        cluster = ray_cluster(args.ray)  # before a plan that may take minutes
    except HarnessError as exc:  # a scenario that does not load, a directory the column users cannot reach, no Ray head
        print(f"error: {printable(str(exc))}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    out = Path(tempfile.mkdtemp(prefix="sweep-check-")) if args.check else args.out
    try:
        plan = planned(args, out)
        if plan is None:
            return 2
        if args.plan:
            print(f"plan: {len(plan['jobs'])} jobs in {out / PLAN}")
            return 1 if plan["not_measured"] else 0
        jobs = select(plan, args.shard)
        locks = {name: entry["lock"] for name, entry in plan["columns"].items()}
        try:
            failed = run_jobs(jobs, locks, out, args.workers, log=lambda m: print(m, flush=True), twice=args.check, cluster=cluster)
        except HarnessError as exc:  # the Ray cluster could not be joined, or offers no CPU
            print(f"error: {printable(str(exc))}", file=sys.stderr)
            return 2
        for column, reason in {**plan["not_measured"], **failed}.items():
            print(f"!!! {column} was NOT MEASURED: {reason}", file=sys.stderr)
        print(f"{len(jobs)} jobs in {time.perf_counter() - started:.0f} s")
        if args.shard is not None:
            return 1 if failed or plan["not_measured"] else 0
        if failed or plan["not_measured"]:
            return 1
        if args.check:
            return check(out, args.output or SWEEP, args.sample)
        return write_merged([out], args.output)
    finally:
        if args.check:
            shutil.rmtree(out, ignore_errors=True)


def ray_cluster(address: str | None) -> Cluster | None:
    """The Ray cluster ``--ray`` names, once something answers at its head's address (None: the jobs run here)."""
    if address is None:
        return None
    from harness.runner_side.explore.on_ray import RayCluster, check_reachable  # its module needs the ray extra to play

    check_reachable(address)
    return RayCluster(address)


def planned(args: argparse.Namespace, out: Path) -> dict[str, Any] | None:
    """The plan of ``out`` when it has one for this selection (a new one with ``--plan`` or when it has none)."""
    path = out / PLAN
    if path.exists() and not args.plan:
        plan: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        wanted = sorted(s.id for s in load_scenarios(SCENARIO_DIR) if swept(s) and (not args.sample or s.id in args.sample))
        ours = sorted([*plan["columns"], *plan["not_measured"]]) == args.columns and plan["modes"] == args.modes and plan["scenarios"] == wanted
        if not ours:
            print(f"error: {path} plans {', '.join(sorted([*plan['columns'], *plan['not_measured']]))} in {', '.join(plan['modes'])} "
                  f"({len(plan['scenarios'])} scenarios): "
                  "give the same selection, another --out, or --plan to plan again", file=sys.stderr)  # fmt: skip
            return None
        return plan
    source = SCENARIO_DIR
    if args.sample:
        source = Path(tempfile.mkdtemp(prefix="sweep-sample-", dir=out.parent if args.check else None))
        for name in args.sample:
            shutil.copyfile(SCENARIO_DIR / f"{name}.json", source / f"{name}.json")
    known = registry.known_columns()
    path.unlink(missing_ok=True)  # the old plan goes first: a planning that fails leaves no plan naming scenarios it removed
    shutil.rmtree(out / "scenarios", ignore_errors=True)  # a plan's own job scenarios: replaced with it
    try:
        plan = make_plan([known[n] for n in args.columns], args.modes, source, out, args.workers, log=lambda m: print(m, flush=True))
    finally:
        if args.sample:
            shutil.rmtree(source, ignore_errors=True)
    planned_ids = {j["id"] for j in plan["jobs"]}
    for stale in (out / JOBS).glob("*.json") if (out / JOBS).is_dir() else []:
        if stale.stem not in planned_ids:
            stale.unlink()  # a job of an earlier plan: not one of this plan's
    return plan


def write_merged(dirs: list[Path], output: Path | None) -> int:
    try:
        document = merge(dirs)
        output = output or default_output(json.loads((dirs[0] / PLAN).read_text(encoding="utf-8")), dirs[0])
    except (OSError, ValueError) as exc:
        print(f"error: cannot merge: {exc}", file=sys.stderr)
        return 1
    write_json(output, document)
    print(f"{output}: {summary(document)}")
    if output.resolve() == SWEEP:  # FINDINGS.md and the report quote the sweep: judged again from the evidence as it now is
        return subprocess.run([sys.executable, str(ROOT / "scripts" / "run_framework_comparison.py"), "--rederive"], check=False).returncode
    return 0


def summary(document: dict[str, Any]) -> str:
    rows = [r for modes in document["columns"].values() for rows in modes.values() for r in rows.values()]
    return f"{sum(len(r['kill_points']) for r in rows)} kill points, {sum(r['runs'] for r in rows)} runs, {sum(r['exactly_once'] for r in rows)} exactly once"


def check(out: Path, committed: Path, sample: list[str] | None) -> int:
    """Compare the rows of this sweep with the committed ones (with a sample, only the sampled scenarios' rows)."""
    try:
        document = merge([out])
    except (OSError, ValueError) as exc:
        print(f"error: cannot merge: {exc}", file=sys.stderr)
        return 1
    before = json.loads(committed.read_text(encoding="utf-8")) if committed.exists() else {"columns": {}}
    drift = []
    for column, modes in document["columns"].items():
        for mode, rows in modes.items():
            for sid, row in rows.items():
                old = before["columns"].get(column, {}).get(mode, {}).get(sid)
                if old != row:
                    drift.append(f"{column}/{mode}/{sid}: committed {json.dumps(old, sort_keys=True)[:300]}\n    measured  {json.dumps(row, sort_keys=True)[:300]}")
    if sample is None and document["columns"].keys() != before["columns"].keys():
        drift.append(f"columns: committed {sorted(before['columns'])}, measured {sorted(document['columns'])}")
    for line in drift:
        print(f"DRIFT {line}")
    print(f"sweep check: {summary(document)}; {len(drift)} rows drifted from {committed.name}")
    return 1 if drift else 0


if __name__ == "__main__":
    sys.exit(main())
