#!/usr/bin/env python3
"""Write the flaky-tool scenarios: ``scenarios/flaky_tool_rate_00.json``, ``_20``, ``_50`` and ``_80``, as
``harness.flaky_scenarios`` makes them (its docstring says how each failure schedule is drawn and committed).

Run it from the repository root: ``python scripts/make_flaky_scenarios.py`` rewrites the four files (the same bytes
every time); ``--check`` writes nothing and exits 1 when a committed file differs from what it would write.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from harness.flaky_scenarios import RATES, draw_schedule, failed_fraction, path, render  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a committed file differs")
    args = parser.parse_args(argv)
    stale = []
    for rate in RATES:
        target, text = path(rate), render(rate)
        if args.check:
            if not target.is_file() or target.read_text(encoding="utf-8") != text:
                stale.append(str(target.relative_to(ROOT)))
            continue
        target.write_text(text, encoding="utf-8", newline="\n")
        failed, made = failed_fraction(draw_schedule(rate))
        print(f"{target.relative_to(ROOT)}: failures per call {draw_schedule(rate)}, {failed} of {made} attempts fail")
    if stale:
        print(f"differs from what scripts/make_flaky_scenarios.py writes: {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
