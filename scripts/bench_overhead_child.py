"""The measuring child of ``scripts/bench_overhead.py``: one row's agent (``bench_overhead_rows``), built and run in that
row's own interpreter.

``bench_overhead.py`` starts it as ``python -I`` with the repository and ``scripts/`` on ``sys.path`` (as the runner's
BOOTSTRAP starts a column), in the pinned environment of the framework it measures (the engine and the bare loop in the
project's); it prints one JSON line of figures. What is measured, and how, is said in ``bench_overhead.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).resolve().parent)]  # runnable from a fresh clone

from bench_engine import load_script  # noqa: E402
from bench_overhead_rows import BARE, BUILDERS, FRAMEWORKS, IMPORTS, SCENARIO, WARM_BUILDS, Built, CountingReplay, Setup  # noqa: E402

from harness.scenarios import load_scenario  # noqa: E402

# -- the child's measurements ------------------------------------------------------------------------------------------


def ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def timed_runs(built: Built, prefix: str, runs: int) -> list[float]:
    """Milliseconds of each of ``runs`` whole runs, each on a new session."""
    times = []
    for i in range(runs):
        start = time.perf_counter()
        built.run(f"{prefix}-{i}")
        times.append(ms_since(start))
    return times


def checked_run(built: Built, setup: Setup, variant: str, session: str, how: str) -> float:
    """One run (the warm-up) that must end in the script's final text, having run every scripted tool call (the rows
    built on the fixture world: the engine and the bare loop call the bodies directly); its milliseconds."""
    tools_before = setup.world.calls
    start = time.perf_counter()
    text = built.run(session)
    elapsed = ms_since(start)
    expected, ran = setup.script.replies[-1].text, setup.world.calls - tools_before
    if text != expected:
        raise SystemExit(f"error: {variant} {how}: the run ended with {text!r}, not the script's final text {expected!r}")
    if variant in FRAMEWORKS and ran != setup.script.tool_calls:
        raise SystemExit(f"error: {variant} {how}: {ran} tool bodies ran, the script calls {setup.script.tool_calls}")
    return elapsed


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # kilobytes on Linux


def measure(variant: str, wire_url: str, runs: int) -> dict[str, Any]:
    """Everything one child measures of one row, in order: builds, runs in process, then over HTTP (the import is the
    parent's probe: here it is done first, so the first build pays only what the framework imports on first use)."""
    for module in IMPORTS[variant]:
        importlib.import_module(module)
    figures: dict[str, Any] = {}
    loop = asyncio.new_event_loop()
    script = load_script(SCENARIO)
    setup = Setup(script, load_scenario(SCENARIO).user, Path.cwd(), CountingReplay(script.replies), loop)  # cwd: the child's own scratch
    build = BUILDERS[variant]
    start = time.perf_counter()
    built = build(setup, None)
    figures["build_first_ms"] = ms_since(start)
    builds = []
    for _ in range(WARM_BUILDS):  # a server that builds an agent per request pays this
        start = time.perf_counter()
        again = build(setup, None)
        builds.append(ms_since(start))
        again.close()
    figures["build_ms"] = statistics.median(builds)

    figures["run_first_ms"] = checked_run(built, setup, variant, "first", "in process")
    if variant != BARE and setup.model.calls != setup.script.model_turns:  # the bare loop reads the script itself
        raise SystemExit(f"error: {variant}: {setup.model.calls} model requests in one run; the script has {setup.script.model_turns} turns")
    figures["run_ms"] = statistics.median(timed_runs(built, "run", runs))
    figures["saved_bytes"], figures["saved_writes"] = built.saved("first") if built.saved else (None, None)
    figures["peak_mb"] = peak_mb()
    built.close()

    start = time.perf_counter()
    wired = build(setup, wire_url)
    figures["wire_build_first_ms"] = ms_since(start)
    figures["wire_first_ms"] = checked_run(wired, setup, variant, "wire-first", "over HTTP")
    figures["wire_ms"] = statistics.median(timed_runs(wired, "wire", runs))
    figures["wire_runs"] = runs + 1
    figures["peak_mb_end"] = peak_mb()
    wired.close()
    loop.run_until_complete(loop.shutdown_asyncgens())  # an agent's unfinished async generators, closed before the loop
    loop.close()
    return figures


def child_main(argv: list[str]) -> int:
    """The measuring child: ``--variant NAME --wire URL --runs N --out FILE``; the network guard first, as in a column."""
    parser = argparse.ArgumentParser(prog="bench_overhead child")
    parser.add_argument("--variant", required=True, choices=sorted(BUILDERS))
    parser.add_argument("--wire", required=True, help="the worker URL on the wire server (<base>/<mode>/<scenario>/<step>/v1)")
    parser.add_argument("--wire-port", type=int, required=True)
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    from harness.column_side.network_guard import install_network_guard

    install_network_guard(Path("network.jsonl").resolve(), frozenset({args.wire_port}))
    args.out.write_text(json.dumps(measure(args.variant, args.wire, args.runs)), encoding="utf-8")
    return 0


