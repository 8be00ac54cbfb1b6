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
import dataclasses
import shutil
import signal
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from harness import columns as registry  # noqa: E402
from harness.errors import ScenarioError, printable  # noqa: E402
from harness.modes import DEFAULT_MODES  # noqa: E402
from harness.modes import MODES as ALL_MODES  # noqa: E402
from harness.runner_side.cli_parser import OneLineParser  # noqa: E402
from harness.runner_side.pipeline import Request, compare, rederive  # noqa: E402
from harness.runner_side.publish.output_dir import BadOutput, output_as_it_was, real, unwritable  # noqa: E402
from harness.runner_side.run.processes import Stopped, stop_all  # noqa: E402
from harness.runner_side.run.runner import check_separation  # noqa: E402
from harness.runner_side.run.users import CannotReach  # noqa: E402
from harness.scenarios import SCENARIO_DIR, load_expectations, load_scenarios, shown  # noqa: E402

MODES = {**{mode: [mode] for mode in ALL_MODES}, "both": ["defaults", "contract"], "all": list(DEFAULT_MODES)}
COMMITTED = (ROOT / "evidence").resolve()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    known = ", ".join(registry.known_columns())
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--framework", action="append", metavar="NAME", help=f"column to run (repeatable; default: all; known: {known})")
    parser.add_argument(
        "--mode", choices=sorted(MODES), default="all",
        help="which modes to run: defaults, contract, wire (the model over HTTP on the scripted server), both (defaults and contract), all "
        "(defaults, contract and wire; the default) or mcp (every tool from the runner's MCP server through the framework's own MCP client: on its "
        "own, as it waits on that server); the handwritten reference runs contract, and wire when wire is asked for, handwritten_mcp the contract for mcp",
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
    parser.add_argument(
        "--sample", action="append", metavar="SCENARIO",
        help="with --check: play only these committed scenarios (repeatable) and compare their entries with the committed evidence, which "
        "is not rewritten (CI's check of the mcp mode)",
    )  # fmt: skip
    parser.add_argument("--allow-not-measured", action="store_true", help="exit 0 even when a requested column could not be measured")
    parser.add_argument("--keep-scratch", action="store_true", help="keep every column's scratch files (SQLite, logs) and print where")
    args = parser.parse_args(argv)
    names = args.framework or ["all"]
    unknown = [n for n in names if n != "all" and n not in registry.known_columns()]
    if unknown:
        parser.error(f"unknown framework {', '.join(unknown)}; known: {known}")
    args.columns = list(registry.known_columns()) if "all" in names else list(dict.fromkeys(names))
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
    if args.sample and (not args.check or own or args.rederive):
        parser.error("--sample is a check of the committed evidence: give --check, without --scenarios or --rederive")
    unknown_ids = sorted(set(args.sample or ()) - {p.stem for p in SCENARIO_DIR.glob("*.json") if p.name != "scenario.schema.json"})
    if unknown_ids:
        parser.error(f"--sample: no committed scenario {', '.join(unknown_ids)}")
    problem = unwritable(args.output)
    if problem:
        parser.error(f"--output {shown(args.output)}: {problem}")
    return args


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
    request = Request(tuple(args.columns), tuple(MODES[args.mode]), args.scenarios, args.output, args.whole, args.check, args.wide,
                      args.allow_not_measured)
    if args.rederive:
        return rederive(request, scenarios, before)
    scratch = Path(tempfile.mkdtemp(prefix="framework-comparison-"))
    if args.sample:  # the sampled files alone, in a directory of their own: the columns play only them
        (scratch / "sample").mkdir()
        for name in args.sample:
            shutil.copyfile(SCENARIO_DIR / f"{name}.json", scratch / "sample" / f"{name}.json")
        scenarios = [s for s in scenarios if s.id in args.sample]
        request = dataclasses.replace(request, scenarios=scratch / "sample", whole=False, sample=tuple(args.sample))
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _stop)
    try:
        return compare(request, scenarios, expectations, before, scratch)
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


if __name__ == "__main__":
    sys.exit(main())
