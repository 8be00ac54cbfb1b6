#!/usr/bin/env python3
"""Run the framework comparison and write its evidence.

At this stage the one column is ``handwritten``: the hand-written engine over every
scenario, checked against each scenario's ``expected`` block. Exit status 0 means every
observable of every scenario matched.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from handwritten.canonical import canonical_json  # noqa: E402
from harness.canonical_io import write_json  # noqa: E402
from harness.errors import ScenarioError  # noqa: E402
from harness.handwritten_check import ScenarioCheck, check_scenario, evidence  # noqa: E402
from harness.observables import OBSERVABLES  # noqa: E402
from harness.scenarios import SCENARIO_DIR, load_expectations, load_scenarios  # noqa: E402

KNOWN_FRAMEWORKS = ("handwritten",)


def _cell(value: object, width: int = 46) -> str:
    text = canonical_json(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def print_table(checks: list[ScenarioCheck]) -> None:
    header = f"{'scenario':<30} {'observable':<28} {'ok':<3} {'expected':<46} actual"
    print(header)
    print("-" * len(header))
    for check in checks:
        for name in OBSERVABLES:
            ok = "✓" if name not in check.mismatches else "✗"
            print(f"{check.scenario.id:<30} {name:<28} {ok:<3} {_cell(check.expected[name]):<46} {_cell(check.actual[name])}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--framework", action="append", help=f"column to run (repeatable; known: {', '.join(KNOWN_FRAMEWORKS)}; default: all)")
    parser.add_argument("--scenarios", type=Path, default=SCENARIO_DIR, help="directory of scenario files (default: scenarios/)")
    parser.add_argument("--output", type=Path, default=ROOT / "evidence", help="evidence directory (default: evidence/)")
    parser.add_argument("--keep-scratch", action="store_true", help="keep the per-scenario SQLite files and logs and print where")
    args = parser.parse_args(argv)

    frameworks = args.framework or ["all"]
    unknown = [f for f in frameworks if f not in KNOWN_FRAMEWORKS + ("all",)]
    if unknown:
        parser.error(f"unknown framework {', '.join(unknown)}; known: {', '.join(KNOWN_FRAMEWORKS)}")
    try:
        scenarios = load_scenarios(args.scenarios)
        expectations = load_expectations(args.scenarios)
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    scratch = Path(tempfile.mkdtemp(prefix="framework-comparison-"))
    try:
        checks = []
        for scenario in scenarios:
            check = check_scenario(scenario, expectations[scenario.id], scratch / "handwritten" / "contract" / scenario.id)
            checks.append(check)
            print(f"[handwritten] {scenario.id:<34} {'equal' if check.equal else 'DIFFERS: ' + ', '.join(check.mismatches)}", flush=True)
    finally:
        if args.keep_scratch:
            print(f"scratch kept in {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)

    print()
    print_table(checks)
    write_json(args.output / "handwritten.json", evidence(checks))
    failed = [c.scenario.id for c in checks if not c.equal or c.status != "ok"]
    print(f"\nhandwritten: {len(checks) - len(failed)}/{len(checks)} scenarios match their expectations; evidence in {args.output / 'handwritten.json'}")
    if failed:
        print(f"MISMATCH in: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
