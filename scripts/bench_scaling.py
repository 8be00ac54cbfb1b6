#!/usr/bin/env python3
"""Does the cost of a run grow linearly with its work? A scaling benchmark of every column and of the harness.

Generates scenarios of 10, 100 and 500 model turns (each turn one read-only or reversible tool call
with a fresh call id, then a final text; ``max_steps`` above the turn count) in a temporary
directory, runs each one through every column and mode with the harness's own runner and evidence
builders (as ``scripts/run_framework_comparison.py`` does) into a temporary output directory, and
prints per column and mode:

- wall time of the column run and its marginal cost per turn from 10 to 100 and from 100 to 500 turns;
- peak memory of the column's processes (the largest sum of resident memory over the runner's
  descendants, sampled every 50 ms while the column process runs);
- evidence bytes per turn (the column's JSON document for that scenario), from 10 to 100 and 100 to 500;
- the harness's own time (runner side: reading the column's report, ledger reads, observation,
  comparator, reasons, schema validation, evidence writing), measured by timers on the harness side,
  and its marginal cost per turn.

Linear cost shows as equal marginal figures in both ranges; a ratio (100→500 over 10→100) well above
1 is growth faster than linear. Everything runs in one process, one column at a time, so the ratios
are taken side by side on the same machine. Nothing is written to ``scenarios/`` or ``evidence/``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from harness.canonical_io import write_json  # noqa: E402
from harness.columns import REFERENCE, known_columns  # noqa: E402
from harness.modes import MODES, reference_modes  # noqa: E402
from harness.runner_side.publish import evidence  # noqa: E402
from harness.runner_side.run import runner  # noqa: E402
from harness.scenarios import load_scenarios  # noqa: E402

SIZES = (10, 100, 500)
IN_PROCESS_MODES = tuple(m for m in MODES if m != "wire")
"""The modes a third-party column is measured in: the bench runs no scripted wire server."""


def scenario(turns: int) -> dict[str, Any]:
    """``turns`` model turns, each one tool call (read-only and reversible in turn) with a fresh id, then a final text."""
    script: list[dict[str, Any]] = []
    for n in range(1, turns + 1):
        if n % 2:
            call = {"id": f"c{n}", "name": "get_weather", "arguments": {"city": f"City {n}"}}
        else:
            call = {"id": f"c{n}", "name": "put_note", "arguments": {"key": f"k{n}", "text": f"note {n}"}}
        script.append({"tool_calls": [call]})
    script.append({"text": f"Done after {turns} tool calls."})
    return {
        "id": f"scaling_{turns}",
        "description": f"A generated scaling scenario: {turns} model turns with one tool call each, then a final answer.",
        "covers": ["basic_react"],
        "tools": ["get_weather", "put_note"],
        "session_id": f"sess-scaling-{turns}",
        "user_input": "Look up the weather and keep notes.",
        "system_prompt": "You are a support agent. Use the tools when they help.",
        "max_steps": turns + 5,
        "model_script": script,
        "driver": [{"action": "run", "event_id": "e1"}],
        "faults": [],
    }


class Timers:
    """Seconds spent in named harness-side calls, summed, and the column process's wall time and peak memory."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.peak_rss_kb = 0

    def wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                if name == "column":  # the column process: sample its memory while it runs
                    with sampling(self):
                        return function(*args, **kwargs)
                return function(*args, **kwargs)
            finally:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started

        return timed

    def reset(self) -> None:
        self.seconds, self.peak_rss_kb = {}, 0


def _descendants_rss_kb() -> int:
    """Resident memory (kB) of every process below this one, from /proc (0 where /proc is unavailable)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.scandir("/proc") if os.path.isdir("/proc") else ():
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", encoding="ascii", errors="replace") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
        except OSError:
            continue
        pid = int(entry.name)
        children.setdefault(int(fields.get("PPid", "0")), []).append(pid)
        rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0] or 0)
    total, todo = 0, list(children.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += children.get(pid, [])
    return total


@contextmanager
def sampling(timers: Timers, period_s: float = 0.05) -> Iterator[None]:
    """Sample the descendants' resident memory while the block runs; keep the peak in ``timers``."""
    done = threading.Event()

    def sample() -> None:
        while not done.wait(period_s):
            timers.peak_rss_kb = max(timers.peak_rss_kb, _descendants_rss_kb())

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def instrument(timers: Timers) -> None:
    """Timers around the harness's own calls, patched where the runner and the evidence builders look them up."""
    for module, name, part in ((runner, "run_watched", "column"), (runner, "observation", "observation"), (runner, "_with_ledger", "ledger"),
                               (evidence, "compare_scenario", "comparator"), (evidence, "reasons", "reasons")):  # fmt: skip
        setattr(module, name, timers.wrap(part, getattr(module, name)))


def measure(args: argparse.Namespace, work: Path, timers: Timers) -> list[dict[str, Any]]:
    """Run every size through every requested column and mode; one row per (column, mode, size)."""
    rows: list[dict[str, Any]] = []
    for turns in args.sizes:
        directory = work / "scenarios" / str(turns)
        directory.mkdir(parents=True)
        (directory / f"scaling_{turns}.json").write_text(json.dumps(scenario(turns), indent=2), encoding="utf-8")
        loaded = {s.id: s for s in load_scenarios(directory)}
        files = {s.id: s.file for s in loaded.values()}
        reference = None
        for name in [REFERENCE, *[c for c in args.columns if c != REFERENCE]]:
            column = known_columns()[name]
            for mode in reference_modes(args.modes) if name == REFERENCE else args.modes:
                timers.reset()
                started = time.perf_counter()
                result = runner.run_column(
                    column, [mode], directory, work / "scratch" / f"{turns}-{mode}", scenario_count=1,
                    scenario_timeout_s=args.timeout, log=lambda _: None,
                )  # fmt: skip
                wall = time.perf_counter() - started
                if name == REFERENCE:
                    reference = result
                harness = wall - timers.seconds.get("column", 0.0)  # the runner's own part of run_column
                started = time.perf_counter()
                if name == REFERENCE:
                    document = evidence.handwritten_document(result, {}, files)
                else:
                    assert reference is not None
                    document = evidence.column_document(result, reference, loaded)
                errors = evidence.validation_errors(document)
                out = work / "evidence" / str(turns) / mode / f"{name}.json"
                write_json(out, document)
                harness += time.perf_counter() - started
                if result.status == "measured" and not result.modes.get(mode):
                    continue  # the column does not offer this mode
                records = [r for body in document.get("modes", {}).values() for r in body["scenarios"].values()]
                status = result.status if result.status != "measured" else (records[0]["status"] if records else "none")
                rows.append({
                    "column": name, "mode": mode, "turns": turns, "wall_s": wall, "column_s": timers.seconds.get("column", 0.0),
                    "harness_s": harness, "peak_mb": timers.peak_rss_kb / 1024, "bytes": out.stat().st_size,
                    "status": status if not errors else f"schema: {errors[0]}", "parts": dict(timers.seconds),
                    "reason": result.reason or (records[0]["error"] if records else None),
                })  # fmt: skip
                print(f"  {name}/{mode} {turns} turns: {wall:.1f} s, harness {harness * 1000:.0f} ms, {status}", flush=True)
    return rows


def table(rows: list[dict[str, Any]], sizes: tuple[int, ...]) -> str:
    """One line per column and mode: wall time per size, marginal per turn, peak memory, evidence bytes per turn."""
    import pandas as pd

    low, mid, high = sizes
    by: dict[tuple[str, str], dict[int, dict[str, Any]]] = {}
    for row in rows:
        by.setdefault((row["column"], row["mode"]), {})[row["turns"]] = row

    def marginal(cells: dict[int, dict[str, Any]], key: str, a: int, b: int, scale: float = 1.0) -> float:
        return float(cells[b][key] - cells[a][key]) / (b - a) * scale

    lines = []
    for (column, mode), cells in by.items():
        if set(cells) != set(sizes):
            continue
        lo, hi = marginal(cells, "wall_s", low, mid, 1000), marginal(cells, "wall_s", mid, high, 1000)
        hlo, hhi = marginal(cells, "harness_s", low, mid, 1000), marginal(cells, "harness_s", mid, high, 1000)
        blo, bhi = marginal(cells, "bytes", low, mid), marginal(cells, "bytes", mid, high)
        lines.append({
            "column": column[:12], "mode": mode[:4], f"s@{high}": round(cells[high]["wall_s"], 1),
            "ms/t lo": round(lo, 1), "ms/t hi": round(hi, 1), "x": round(hi / lo, 1) if lo > 0 else None,
            "MB": round(max(c["peak_mb"] for c in cells.values())),
            "h ms/t lo": round(hlo, 2), "hi": round(hhi, 2), "hx": round(hhi / hlo, 1) if hlo > 0 else None,
            "B/t lo": round(blo), "B/t hi": round(bhi), "bx": round(bhi / blo, 1) if blo > 0 else None,
        })  # fmt: skip
    return pd.DataFrame(lines).to_string(index=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--framework", action="append", metavar="NAME", help="column to run (repeatable; default: all)")
    parser.add_argument("--mode", action="append", choices=IN_PROCESS_MODES, help="mode of the third-party columns (repeatable; default: both)")
    parser.add_argument("--sizes", type=int, nargs=3, default=SIZES, metavar="N", help="three turn counts (default: 10 100 500)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds allowed per scenario run (default: 600)")
    parser.add_argument("--json", type=Path, help="also write every measured row (with the harness's parts) to this file")
    parser.add_argument("--plot", type=Path, metavar="FILE.svg", help="also draw each column and mode's wall time by turns, as SVG (the bench extra)")
    args = parser.parse_args(argv)
    if args.plot and importlib.util.find_spec("matplotlib") is None:  # refuse now, not after the runs
        parser.error("--plot needs matplotlib: pip install -e '.[bench]'")
    unknown = [n for n in args.framework or () if n not in known_columns()]
    if unknown:
        parser.error(f"unknown framework {', '.join(unknown)}; known: {', '.join(known_columns())}")
    args.columns = args.framework or list(known_columns())
    args.modes = args.mode or list(IN_PROCESS_MODES)
    args.sizes = tuple(sorted(args.sizes))
    timers = Timers()
    instrument(timers)
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-scaling-") as work:
        warm_up = argparse.Namespace(**{**vars(args), "columns": [REFERENCE], "sizes": (1,)})
        measure(warm_up, Path(work) / "warm-up", timers)  # imports and schema caches: one-time costs, not per turn
        rows = measure(args, Path(work), timers)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    low, mid, high = args.sizes
    print(f"\nms/t: marginal wall ms per turn, {low}->{mid} (lo) and {mid}->{high} (hi); x = hi/lo (1 is linear)")
    print("h: the harness's own time (runner side); B/t: evidence bytes per turn; MB: peak RSS of the column processes\n")
    print(table(rows, args.sizes))
    for row in rows:
        if row["status"] != "ok":
            print(f"!!! {row['column']}/{row['mode']} {row['turns']} turns: {row['status']}: {str(row['reason'])[:60]}")
    if args.plot:
        plot(rows, args.plot, argv if argv is not None else sys.argv[1:], load)
        print(f"plot written to {args.plot}")
    return 0


def plot(rows: list[dict[str, Any]], path: Path, argv: list[str], load: float) -> None:
    """Wall seconds of each column and mode's run by model turns, one line each (defaults dashed), log-log; a line
    whose run did not end ``ok`` at some size says so in its label."""
    import bench_plot

    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        by.setdefault((row["column"], row["mode"]), []).append(row)
    series = []
    for (column, mode), cells in by.items():
        failed = [str(c["turns"]) for c in cells if c["status"] != "ok"]
        label = f"{column} {mode}" + (f" (not ok at {', '.join(failed)} turns)" if failed else "")
        series.append(bench_plot.Line(label, [(c["turns"], c["wall_s"]) for c in cells], group=column, dashed=mode == "defaults"))
    note = f"one run, columns one at a time; load average {load:.1f} at the start"
    bench_plot.lines(series, path, title="Wall time of a column's run by model turns (one tool call a turn; log-log)",
                     xlabel="model turns in the generated scenario", ylabel="wall s (column process and harness)",
                     caption=bench_plot.caption("scripts/bench_scaling.py", argv, note=note))  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
