#!/usr/bin/env python3
"""Check that the reasons vouch only for what their facts show: mutate every framework leaf of every not-equal cell of
the evidence, one at a time, to a plausible other value (another status, a refusal from another scenario, a count
one more or one less, a turn asked once more or once less, a call's effects moved to another call, a flipped flag,
another resume position, deduplicator or call id), re-derive the reasons from the evidence files with the rule table
(no framework runs), and count a mutation as caught when the mutated leaf is no longer explained (no claim's value,
derived from the facts, is the new value) or every reason whose claim vouches for the new value states it.
``harness/runner_side/judge/mutants/mutations.py`` defines each mutation, ``harness/runner_side/judge/mutants/score.py``
"explained" and "states" precisely.

Prints the score, per rule and per kind of mutation. Exit status: 0 when the score is at least the threshold (``--min``,
else the score the README states), 1 below it, 2 when the evidence's stored reasons are not the ones the rules derive
from it (regenerate it with scripts/run_framework_comparison.py) or the README states no score.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from harness.runner_side.judge.mutants.score import check, stated_score, summary  # noqa: E402
from harness.scenarios import SCENARIO_DIR, load_scenarios  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--evidence", type=Path, default=ROOT / "evidence", help="directory of evidence JSON files (default: evidence/)")
    parser.add_argument("--scenarios", type=Path, default=SCENARIO_DIR, help="directory of scenario files (default: scenarios/)")
    parser.add_argument("--min", type=float, default=None, help="the lowest score that passes, in percent (default: the score README.md states)")
    parser.add_argument("--show", type=int, default=0, metavar="N", help="print the first N missed mutations")
    args = parser.parse_args(argv)
    threshold = args.min if args.min is not None else stated_score((ROOT / "README.md").read_text(encoding="utf-8"))
    if threshold is None:
        print("README.md states no score for scripts/check_reasons.py; pass --min", file=sys.stderr)
        return 2
    started = time.perf_counter()
    report = check(args.evidence, {s.id: s for s in load_scenarios(args.scenarios)})
    print(summary(report, args.show))
    print(f"  re-derived in {time.perf_counter() - started:.1f} s")
    if report.stale:
        print(f"the stored reasons of {len(report.stale)} records are not what the rules derive from their facts (first: {report.stale[0]}); "
              "regenerate the evidence with scripts/run_framework_comparison.py", file=sys.stderr)
        return 2
    if report.score < threshold:
        print(f"score {report.score:.1f} % is below {threshold:.1f} %", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
