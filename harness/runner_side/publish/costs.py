"""What a comparison run cost, per column and per scenario: printed at the end of a run and kept in ``timings.json``.

Times are the machine's and its load's (wall clock, ``time.perf_counter``), so they never enter the evidence:
``timings.json`` is git-ignored, and a budget is held in a benchmark (``scripts/bench_matrix.py``), never in a test.
A column's *wall time* is from the moment its thread started it (environment check included) to the moment its
process's results were read; its *share* is that wall time over the whole run's, so columns that ran side by side
have shares that add up to more than 100 %. ``finished_at_s`` is when the column ended, counted from the run's start:
the column that finishes last is the run's critical path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SLOWEST_SHOWN = 5


def timings_document(timings: Mapping[str, Mapping[str, Any]], wall_s: float, slowest: int = SLOWEST_SHOWN) -> dict[str, Any]:
    """``timings.json``: the run's wall time, each column's own timings with its share of the run, the slowest scenarios."""
    columns = {name: {**t, "share": t.get("total_s", 0.0) / wall_s if wall_s > 0 else 0.0} for name, t in sorted(timings.items())}
    return {"wall_s": wall_s, "columns": columns, "slowest_scenarios": slowest_scenarios(timings, slowest)}


def slowest_scenarios(timings: Mapping[str, Mapping[str, Any]], count: int = SLOWEST_SHOWN) -> list[dict[str, Any]]:
    """The ``count`` scenario runs (any column, any mode, sub-cases apart) that took longest, slowest first."""
    runs = [{"column": name, "run": run, "seconds": seconds} for name, t in timings.items() for run, seconds in t.get("scenarios_s", {}).items()]
    return sorted(runs, key=lambda r: (-r["seconds"], r["column"], r["run"]))[:count]


def cost_lines(timings: Mapping[str, Mapping[str, Any]], wall_s: float, slowest: int = SLOWEST_SHOWN) -> list[str]:
    """The cost table printed at the end of a run: columns by when they finished (the last one is the critical path),
    then the slowest scenario runs."""
    document = timings_document(timings, wall_s, slowest)
    lines = [f"cost of this run: {wall_s:.1f} s wall clock (columns side by side; the last to finish is the critical path)"]
    lines.append(f"  {'column':<20} {'wall s':>7} {'share':>6} {'finished at s':>14} {'import s':>9} {'scenarios':>9}")
    by_end = sorted(document["columns"].items(), key=lambda item: (item[1].get("finished_at_s", 0.0), item[0]))
    for name, t in by_end:
        lines.append(
            f"  {name:<20} {t.get('total_s', 0.0):>7.1f} {t['share']:>6.0%} {t.get('finished_at_s', 0.0):>14.1f}"
            f" {t.get('import_s', 0.0):>9.1f} {len(t.get('scenarios_s', {})):>9}"
        )
    if document["slowest_scenarios"]:
        lines.append("  slowest scenario runs:")  # one a line: a scenario key may be long, and every line fits 100 columns
        lines += [f"    {r['seconds']:>5.1f} s  {r['column']}/{r['run']}" for r in document["slowest_scenarios"]]
    return lines
