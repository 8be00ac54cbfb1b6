#!/usr/bin/env python3
"""Check that a column's glue count is exact: run its scenarios once per mode with line tracing, in the
column's own environment, and report the lines only ``contract`` mode runs that are not counted as glue,
and the counted glue lines ``defaults`` mode runs (``harness/glue_coverage.py``). Only what runs while the
framework plays a driver step is traced; lines the column declares ``defaults`` never reaches
(``defaults_never_reaches`` on its class, each with a reason) are listed apart, with the reason.

Exit status: 0 when both are empty (and every declaration names a function), 1 otherwise, 2 when the column
cannot be traced (or a file the check reads changed under the run).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from harness.columns import known_columns  # noqa: E402
from harness.errors import HarnessError  # noqa: E402
from harness.runner_side.run.glue_coverage import TRACE_TIMEOUT_S, check_column  # noqa: E402
from harness.scenarios import SCENARIO_DIR  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("column", choices=sorted(known_columns()), help="the column to check")
    parser.add_argument("--scenarios", type=Path, default=SCENARIO_DIR, help="directory of scenario files (default: scenarios/)")
    parser.add_argument("--scenario-timeout", type=float, default=TRACE_TIMEOUT_S, help="seconds per traced scenario")
    parser.add_argument("--keep-scratch", action="store_true", help="keep the traced runs' scratch files and print where")
    args = parser.parse_args(argv)
    column = known_columns()[args.column]
    scratch = Path(tempfile.mkdtemp(prefix=f"glue-coverage-{column.name}-"))
    started = time.perf_counter()
    try:
        python = None
        if column.environment == "isolated":
            from harness.runner_side.run.environments import column_environment  # only isolated columns need uv

            python = column_environment(column).python
        coverage = check_column(column, args.scenarios, scratch, python=python, scenario_timeout_s=args.scenario_timeout)
    except (HarnessError, RuntimeError, OSError) as exc:  # OSError: the environment went away under the run
        print(f"{column.name}: cannot be traced: {exc}", file=sys.stderr)
        return 2
    finally:
        if args.keep_scratch:
            print(f"scratch kept in {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print(coverage.report())
    print(f"  traced both modes in {time.perf_counter() - started:.0f} s")
    return 0 if coverage.ok else 1


if __name__ == "__main__":
    sys.exit(main())
