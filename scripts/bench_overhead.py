#!/usr/bin/env python3
"""Overhead per framework: import, construction, one run in process and over loopback HTTP, memory, saved state.

Run it from the repository root (the frameworks' environments are built from their locks, or reused)::

    python scripts/bench_overhead.py                          # every framework, default rounds, tables on stdout
    python scripts/bench_overhead.py --rounds 3 --framework langgraph --framework pydantic_ai --json /tmp/overhead.json

The rows, all on ``scenarios/basic_react_loop.json`` (four model turns: three read-only tool calls, then a final text):

- ``bare loop``: ``bench_engine.bare_loop``, the same calls with nothing around them; over HTTP, the same loop on the
  ``openai`` client's ``chat.completions.create`` (the client every framework here uses underneath).
- ``engine``: the hand-written engine as the ``handwritten`` column runs it (SQLite checkpoint and idempotency stores in
  a file, WAL); over HTTP with its own ``handwritten.wire_model.OpenAIWireModel``.
- one row per framework: the agent its column builds in ``defaults``, from the adapter's own pieces (the scripted model
  behind the framework's model interface, the fixture tools the documented way, the wire mode's OpenAI-compatible
  model) and the persistence the column gives it (LangGraph and LangChain: ``SqliteSaver``; OpenAI Agents:
  ``SQLiteSession``; AgentScope: the ``AgentState`` JSON saved when the reply returns; Pydantic AI: the message history
  saved with ``ModelMessagesTypeAdapter``). One change from the column: AgentScope asks the user about every call of a
  custom function tool in its default permission mode (the column's driver answers), so here the session's permission
  context allows the two read-only tools (AgentScope's allow rules), and the run goes through unattended like the others.

Every model answers from the same in-process replay of the script (``bench_engine.ReplayModel``: no I/O; the harness's
``ScriptedModel`` writes a log line per request) and every tool body is the fixture's pure body (no ledger, no faults),
so what differs between the rows is the loop around them. Over HTTP, the model is the framework's OpenAI-compatible one,
at its defaults, against the runner's scripted ``WireServer`` that this script starts on 127.0.0.1.

The figures (the medians of their rounds; each round, every row's figure is the median of its measuring child's runs):

- ``import s``: a fresh ``python -I -c "import <modules>"`` of the row's pinned interpreter, wall clock: interpreter
  start included (the bare loop's row imports ``json`` only: that is the floor);
- ``build ms``: building the agent again in a process that has built one (model, tools, agent or compiled graph,
  persistence opened); the first build, with what a framework imports on first use, is in ``--json``
  (``build_first_ms``). Not shown for the bare loop, which builds a dict of its tool functions (a few microseconds);
- ``run ms`` / ``wire ms``: one whole scenario run (a new session each time) after a warm-up run, in process / over HTTP;
  ``ms/turn``: the same per model turn (four);
- ``peak MB``: ``ru_maxrss`` of the measuring child after its in-process runs (imports, builds, runs; the HTTP part's
  peak is in ``--json``). Every child imports the same harness modules (this script, ``bench_engine``, the guard), so the
  bare loop's figure is that floor, not a bare interpreter's;
- ``saved B/turn``: the bytes one run handed its persistence (LangGraph's checkpoint and metadata blobs and task writes;
  the session's items; the saved JSON; the engine's checkpoint rows, ``added`` and ``state``), per model turn; and
  ``writes/run``, how many rows or files that was; ``-`` where nothing persists (the bare loop).

Method: the same as ``bench_engine.py``'s (``bench_measure.py``), one level up. Each framework lives in its own pinned
interpreter, so a sample is a child process: each round runs, for every row in an order that rotates every round, the
import probe and then a measuring child (this file, ``python -I`` with the repository on ``sys.path`` as the runner's
BOOTSTRAP does; the engine and the bare loop in the project's interpreter, as children too). Ratios to the engine and to
the bare loop are taken within each round, then the median over rounds (``bench_measure.summarize``), so a busy
machine's drift hits every row alike. Children get ``harness.runner_side.run.sandbox.clean_environment`` (tracing and
telemetry off, no keys) and install the columns' network guard (loopback to the wire server's port only, no program
started; what it refused is printed: the openai client's ``uname -p`` in every row). ``--json`` writes a timing file:
machine- and load-dependent, never evidence.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
sys.path[:0] = [str(ROOT), str(SCRIPTS)]  # runnable from a fresh clone without installing; bench_* beside this file

from bench_measure import summarize  # noqa: E402
from bench_overhead_rows import BARE, ENGINE, FRAMEWORKS, IMPORTS, SCENARIO, TURNS, WIRE_MODE  # noqa: E402

if TYPE_CHECKING:  # the runner side's modules are imported where they are used
    from harness.runner_side.run.servers.wire import WireServer

# As the runner starts a column: -I ignores PYTHONPATH and the user site; the first argument is put first on sys.path.
BOOTSTRAP = "import sys; sys.path[:0] = sys.argv[1].split(':'); from bench_overhead_child import child_main; sys.exit(child_main(sys.argv[2:]))"
CHILD_TIMEOUT_S = 600.0


# == the runner side: environments, the wire server, interleaved rounds, statistics ======================================


class NotMeasured(Exception):
    """A row's child failed; the message says why (the tail of its stderr)."""


@dataclass
class Row:
    """One row of the table: its interpreter, its wire server base URL, and what its rounds measured."""

    name: str
    python: Path
    base_url: str
    versions: dict[str, str] = field(default_factory=dict)  # every package its lock pins (the JSON keeps them)
    pins: dict[str, str] = field(default_factory=dict)  # its direct pins (requirements.in), printed
    rounds: list[dict[str, Any]] = field(default_factory=list)
    refused: set[str] = field(default_factory=set)


def import_probe(row: Row, scratch: Path) -> float:
    """Seconds of a fresh ``python -I -c "import <modules>"`` of the row's interpreter, start to exit."""
    from harness.runner_side.run.sandbox import clean_environment

    command = [str(row.python), "-I", "-c", "import " + ", ".join(IMPORTS[row.name])]
    start = time.perf_counter()
    done = subprocess.run(command, env=clean_environment(scratch), cwd=scratch, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise NotMeasured(f"the import probe failed: {done.stderr.strip().splitlines()[-1:]}")
    return elapsed


def run_child(row: Row, round_no: int, runs: int, scratch: Path, server: WireServer) -> dict[str, Any]:
    """One measuring child of ``row`` in ``scratch``, its figures, checked against what the wire server heard."""
    from harness.runner_side.run.sandbox import clean_environment, refused_attempts

    key = f"basic_react_loop@{round_no}"  # the server plays basic_react_loop; the suffix makes each child a run of its own
    out = scratch / "figures.json"
    command = [str(row.python), "-I", "-c", BOOTSTRAP, f"{ROOT}:{SCRIPTS}", "--variant", row.name,
               "--wire", f"{row.base_url}/{WIRE_MODE}/{key}/0/v1", "--wire-port", str(server.port), "--runs", str(runs), "--out", str(out)]  # fmt: skip
    done = subprocess.run(command, env=clean_environment(scratch), cwd=scratch, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S)
    row.refused |= set(refused_attempts(scratch / "network.jsonl"))
    if done.returncode != 0 or not out.exists():
        raise NotMeasured(f"the measuring child exited with {done.returncode}: {' | '.join(done.stderr.strip().splitlines()[-3:])}")
    figures: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    heard = server.requests(row.name, f"{WIRE_MODE}/{key}")
    turns = [r["turn"] for r in heard]
    if turns != [0, 1, 2, 3] * figures["wire_runs"] or server.errors:
        raise NotMeasured(f"over HTTP the server heard turns {turns[:12]}... ({len(turns)} requests), not four per run; server errors {server.errors}")
    return figures


def sample(row: Row, round_no: int, runs: int, scratch: Path, server: WireServer) -> None:
    """One round of one row: the import probe, then the measuring child."""
    where = scratch / f"{row.name.replace(' ', '_')}-{round_no}"
    where.mkdir()
    probe_s = import_probe(row, where)
    row.rounds.append({"import_s": probe_s, **run_child(row, round_no, runs, where, server)})


# -- statistics and the tables -----------------------------------------------------------------------------------------

# figure -> (heading, how to read it from one round of a row; None where the row has no such figure)
METRICS: dict[str, tuple[str, Callable[[dict[str, Any]], float | None]]] = {
    "import_s": ("import s", lambda r: r["import_s"]),
    "build_ms": ("build ms", lambda r: r["build_ms"]),
    "run_ms": ("run ms", lambda r: r["run_ms"]),
    "wire_ms": ("wire ms", lambda r: r["wire_ms"]),
    "peak_mb": ("peak MB", lambda r: r["peak_mb"]),
    "saved_b_per_turn": ("saved B/turn", lambda r: None if r["saved_bytes"] is None else r["saved_bytes"] / TURNS),
}
# (row, figure) pairs measured but not shown: a ratio to them would say nothing.
NOT_A_FIGURE = {(BARE, "build_ms")}  # the bare loop builds a dict of its tool functions, a few microseconds


def statistics_of(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """Per row and figure: median, quartiles and the medians of the per-round ratios to the engine and the bare loop.

    ``bench_measure.summarize`` names its fields for µs per run; here each figure keeps its own unit."""
    out: dict[str, dict[str, Any]] = {row.name: {} for row in rows}
    runs = {row.name: len(row.rounds) for row in rows}
    for metric, (_, read) in METRICS.items():
        measured = [row for row in rows if read(row.rounds[0]) is not None and (row.name, metric) not in NOT_A_FIGURE]
        samples = {row.name: [read(r) or 0.0 for r in row.rounds] for row in measured}
        summary = summarize(samples, runs, steps_per_run=TURNS, ratios={"x_engine": ENGINE, "x_bare": BARE})
        for name, s in summary.items():
            out[name][metric] = {"median": s["median_us_per_run"], "p25": s["p25_us_per_run"], "p75": s["p75_us_per_run"],
                                 "x_engine": s["x_engine"], "x_bare": s["x_bare"], "samples": s["samples_us_per_run"]}  # fmt: skip
    for row in rows:  # not a ratio: how many writes a run makes, the same every round
        out[row.name]["saved_writes_per_run"] = row.rounds[0]["saved_writes"]
    return out


def _value(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}" if x >= 10 else f"{x:.2f}" if x >= 0.1 else f"{x:.3f}"


def table(stats: Mapping[str, Mapping[str, Any]], field_name: str) -> list[list[str]]:
    """One line per row: its figures' medians (``field_name`` "median") or ratios ("x_engine", "x_bare")."""
    lines = []
    for name, figures in stats.items():
        cells = [name]
        for metric in METRICS:
            figure = figures.get(metric)
            cells.append(_value(figure[field_name]) if figure else "-")
            if field_name == "median" and metric in ("run_ms", "wire_ms"):  # per model turn, beside the run
                cells.append(_value(figure[field_name] / TURNS) if figure else "-")
        if field_name == "median":
            writes = figures["saved_writes_per_run"]
            cells.append("-" if writes is None else str(writes))
        lines.append(cells)
    return lines


def print_table(title: str, headings: Sequence[str], lines: Sequence[Sequence[str]]) -> None:
    """A Markdown table, columns padded so it also reads in a terminal."""
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(headings)]
    print(f"\n{title}\n")
    print("| " + " | ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(headings, widths, strict=True))) + " |")
    print("|" + "|".join("-" * (w + 1) + ("-" if i == 0 else ":") for i, w in enumerate(widths)) + "|")
    for line in lines:
        print("| " + " | ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths, strict=True))) + " |")


def report(stats: Mapping[str, Mapping[str, Any]]) -> None:
    headings = ["row"]
    for metric, (heading, _) in METRICS.items():
        headings.append(heading)
        if metric in ("run_ms", "wire_ms"):
            headings.append(heading.replace(" ms", " ms/turn"))
    headings.append("writes/run")
    print_table("Medians over rounds (run ms / wire ms: one whole run in process / over loopback HTTP):", headings, table(stats, "median"))
    ratio_headings = ["row", *(heading for heading, _ in METRICS.values())]
    print_table("× engine (per-round ratios, median; per turn: the same as per run):", ratio_headings, table(stats, "x_engine"))
    print_table("× bare loop (per-round ratios, median):", ratio_headings, table(stats, "x_bare"))


# -- main --------------------------------------------------------------------------------------------------------------


def rows_to_measure(frameworks: Sequence[str]) -> list[Row]:
    """The bare loop and the engine on this interpreter, each framework on its column's pinned one (built or reused)."""
    from harness.columns import known_columns
    from harness.runner_side.run.environments import REQUIREMENTS_IN_NAME, column_environment, direct_pins

    rows = [Row(BARE, Path(sys.executable), ""), Row(ENGINE, Path(sys.executable), "")]
    for name in frameworks:
        column = known_columns()[name]  # a column at an extra pin (langgraph@0.6.11) is its own environment
        environment = column_environment(column, log=lambda line: print(f"  {line}"))
        pins = direct_pins(column.environment_dir / REQUIREMENTS_IN_NAME)
        shown = {p: v for p, v in pins.items() if p not in ("jsonschema", "pytest")}  # the root's dependency, the tests' runner
        rows.append(Row(name, environment.python, "", versions=environment.versions, pins=shown))
        print(f"  {name}: " + ", ".join(f"{p}=={v}" for p, v in shown.items()))
    return rows


def interleave_rounds(rows: list[Row], rounds: int, runs: int, scratch: Path, server: WireServer) -> list[str]:
    """Every round, each row's import probe and measuring child, in an order that rotates every round (as
    ``bench_measure.interleave`` rotates its batches). A framework whose child fails is dropped from ``rows`` (a
    reference row ends the benchmark: every ratio needs it); the reasons are returned."""
    failed: list[str] = []
    for row in rows:  # unmeasured warm-up: the page cache holds every interpreter's modules before round 0
        import_probe(row, scratch)
    for r in range(rounds):
        started = time.perf_counter()
        k = r % len(rows)
        for row in rows[k:] + rows[:k]:
            try:
                sample(row, r, runs, scratch, server)
            except (NotMeasured, subprocess.TimeoutExpired) as exc:
                if row.name in (BARE, ENGINE):
                    raise SystemExit(f"error: {row.name} (a reference for every ratio) was not measured: {exc}") from None
                failed.append(f"{row.name}: {exc}")
                rows.remove(row)
        print(f"  round {r + 1}/{rounds}: {time.perf_counter() - started:.0f} s, load average {os.getloadavg()[0]:.1f}", flush=True)
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds, one measuring child per row each (default: 4, under 3 minutes on 2 cores)")
    parser.add_argument("--framework", action="append", choices=FRAMEWORKS, metavar="NAME",
                        help=f"only this framework (repeatable; default: all of {', '.join(FRAMEWORKS)})")  # fmt: skip
    parser.add_argument("--runs", type=int, default=10, help="timed runs per child, in process and over HTTP each (default: 10)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the figures here (a timing file, not evidence)")
    parser.add_argument("--plot", type=Path, metavar="FILE.svg", help="also draw the ratios to the engine as bars, as SVG (the bench extra)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.runs < 1:
        parser.error("--rounds and --runs must be >= 1")
    # Refuse now, not after the rounds; but import matplotlib only after them: a child's ru_maxrss starts from this
    # process's resident size when it is spawned (vfork and exec keep the shared memory's peak), so ~40 MB of
    # matplotlib here would show in every row's peak MB.
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        parser.error("--plot needs matplotlib: pip install -e '.[bench]'")
    from harness.runner_side.run.servers.wire import WireServer
    from harness.scenarios import load_scenarios

    frameworks = [f for f in FRAMEWORKS if f in (args.framework or FRAMEWORKS)]
    print(f"bench_overhead: {SCENARIO.name}, {TURNS} model turns; rows: {BARE}, {ENGINE}, {', '.join(frameworks)}")
    print(f"python {platform.python_version()} on {platform.platform()}, {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} at the start")
    print(f"{args.rounds} rounds x {len(frameworks) + 2} rows, order rotating; {args.runs} timed runs per child in process and over HTTP")
    started, load = time.perf_counter(), os.getloadavg()[0]
    rows = rows_to_measure(frameworks)
    with tempfile.TemporaryDirectory(prefix="bench-overhead-") as tmp, WireServer(load_scenarios()) as server:
        for row in rows:
            row.base_url = server.base_url(row.name)
        failed = interleave_rounds(rows, args.rounds, args.runs, Path(tmp), server)
    stats = statistics_of(rows)
    report(stats)
    print(f"\nmeasured in {time.perf_counter() - started:.0f} s; load average {os.getloadavg()[0]:.1f} at the end")
    for row in rows:
        if row.refused:
            print(f"the sandbox refused in {row.name}'s children: {', '.join(sorted(row.refused))}")
    for reason in failed:
        print(f"not measured: {reason}")
    if args.json:
        document = {
            "note": "timing file: machine- and load-dependent, not deterministic evidence",
            "scenario": SCENARIO.name, "model_turns": TURNS, "rounds": args.rounds, "runs_per_child": args.runs,
            "machine": {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count()},
            "rows": {row.name: {"pins": row.pins, "versions": row.versions, "figures": stats[row.name], "rounds": row.rounds,
                                "sandbox_refused": sorted(row.refused)} for row in rows},
            "not_measured": failed,
        }  # fmt: skip
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"figures written to {args.json}")
    if args.plot:
        note = f"{args.rounds} rounds, {args.runs} timed runs per child; load average {load:.1f} at the start"
        plot(stats, args.plot, argv if argv is not None else sys.argv[1:], note)
        print(f"plot written to {args.plot}")
    return 0


def plot(stats: Mapping[str, Mapping[str, Any]], path: Path, argv: Sequence[str], note: str) -> None:
    """Every row's ratios to the engine (the per-round ratios' median), a group of bars per row, a bar per figure, on a
    log scale from the engine's 1 (the engine's own row is that line); the caption says when, where and how."""
    import bench_plot

    groups = [name for name in stats if name != ENGINE]
    series = {heading: [stats[name][metric]["x_engine"] if metric in stats[name] else None for name in groups] for metric, (heading, _) in METRICS.items()}
    bench_plot.bars(groups, series, path, title=f"Overhead per framework on {SCENARIO.stem} ({TURNS} model turns): ratio to the hand-written engine",
                    ylabel="× engine (median of per-round ratios, log scale)", caption=bench_plot.caption("scripts/bench_overhead.py", argv, note=note),
                    baseline_label="engine = 1")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
