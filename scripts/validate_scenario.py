#!/usr/bin/env python3
"""Check scenario files and show what the hand-written engine does with each, step by step.

Each file is read by the same loader as the comparison: a bad file (scenarios/README.md,
"Limits", lists what it refuses) is one line naming the file and the field, and the exit
status is 2; nothing runs. Valid files then run through the hand-written
column only (a file with a fault of the model's endpoint in its wire mode, over HTTP on the
scripted server), in its own sandboxed process (as `run_framework_comparison.py --framework
handwritten` runs it), in a temporary directory that is removed afterwards: nothing under
evidence/ changes. Printed per driver step: the action, the status, any refusal and what the
step added to the ledger per call id; then the final observables every column is compared on
and, when the file has an `expected` block, whether the engine met it.

Exit status: 0 when every file is valid, ran, and met its `expected` block (if any); 1 when
the engine could not run a file or missed its `expected` block; 2 for a bad file or usage.
The scenario format is documented in scenarios/README.md.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from harness.columns import REFERENCE, known_columns  # noqa: E402
from harness.errors import ScenarioError, printable  # noqa: E402
from harness.runner_side.cli_parser import OneLineParser  # noqa: E402
from harness.runner_side.observe.observables import expected_names  # noqa: E402
from harness.runner_side.publish.walkthrough import walkthrough  # noqa: E402
from harness.runner_side.run.runner import check_separation, run_column  # noqa: E402
from harness.runner_side.run.servers.wire import WireServer  # noqa: E402
from harness.runner_side.run.users import CannotReach  # noqa: E402
from harness.scenarios import Scenario, load_expectations, load_scenario, shown  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """FILE... and --trace."""
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="scenario file (<id>.json)")
    parser.add_argument("--trace", action="store_true", help="also print the engine's own events under each driver step")
    return parser.parse_args(argv)


def validate(files: list[Path]) -> tuple[list[Scenario], list[str]]:
    """The scenarios of the files that are valid, and one error line per file that is not."""
    scenarios: list[Scenario] = []
    errors: list[str] = []
    first: dict[str, Path] = {}
    for path in files:
        try:
            scenario = load_scenario(path)
        except ScenarioError as exc:
            errors.append(str(exc))
            continue
        if scenario.id in first:
            errors.append(f"{shown(path)}: field 'id': {scenario.id!r} is also the id of {shown(first[scenario.id])}: run them one at a time")
            continue
        first[scenario.id] = path
        scenarios.append(scenario)
    return scenarios, errors


def main(argv: list[str] | None = None) -> int:
    """Validate, run through the engine, print; the exit status is described in the module docstring."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # piped into head: stop quietly, as a command-line tool does
    args = parse_args(argv)
    scenarios, errors = validate(args.files)
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    if errors:
        return 2
    try:
        check_separation()  # as root the engine's column runs under a user of its own, who must reach the repository
    except CannotReach as exc:
        print(f"error: {printable(str(exc))}", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="validate-scenario-"))
    try:
        directory = scratch / "scenarios"
        directory.mkdir()
        for path, scenario in zip(args.files, scenarios, strict=True):
            shutil.copyfile(path, directory / f"{scenario.id}.json")
        expectations = load_expectations(directory)
        column = known_columns()[REFERENCE]
        log = lambda message: print(f"[{REFERENCE}] {message}", file=sys.stderr)  # noqa: E731
        # A scenario meeting a fault of the model's endpoint runs in wire mode, on the scripted server; the others in process.
        modes = [m for m, wanted in (("contract", not all(s.uses_wire for s in scenarios)), ("wire", any(s.uses_wire for s in scenarios))) if wanted]
        with WireServer(scenarios) as wire:
            result = run_column(column, modes, directory, scratch / "columns", scenario_count=len(scenarios), log=log, wire=wire)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if result.status != "measured":
        print(f"error: the hand-written engine could not run: {printable(str(result.reason))}", file=sys.stderr)
        return 1
    failed = []
    for index, scenario in enumerate(scenarios):
        record, expected = result.modes["wire" if scenario.uses_wire else "contract"][scenario.id], expectations.get(scenario.id)
        print(("\n" if index else "") + f"== {printable(shown(args.files[index]))}")
        print("\n".join(map(printable, walkthrough(scenario, record, expected, trace=args.trace))))  # scenario text: shown, never obeyed
        missed = expected is not None and any(expected[n] != record["observables"][n] for n in expected_names(expected))
        if record["status"] != "ok" or missed:
            failed.append(scenario.id)
    if failed:
        print(f"\nFAILED: {', '.join(failed)} (see above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
