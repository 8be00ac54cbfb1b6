#!/usr/bin/env python3
"""Benchmark the hand-written engine's own overhead on the basic ReAct scenario.

Run it from the repository root (no install needed)::

    python scripts/bench_engine.py                 # default rounds, table on stdout
    python scripts/bench_engine.py --rounds 100 --json /tmp/bench.json
    python scripts/bench_engine.py --profile memory   # also cProfile the in-memory engine

What it measures, side by side in one process, on ``scenarios/basic_react_loop.json``
(four model turns: get_weather Paris, get_weather Oslo, search_kb "shipping times",
then a final text; three tool calls):

- ``bare loop``: a plain Python loop over the same script that calls the same three
  tool functions directly (no validation, no policy, no checkpoint) and appends the
  messages to a list. It is the floor the engine is compared with.
- ``engine, in-memory``: ``handwritten.engine.Engine.run`` with
  ``MemoryCheckpointStore`` and ``MemoryIdempotencyStore``.
- ``engine, SQLite``: the same with ``SqliteCheckpointStore`` and
  ``SqliteIdempotencyStore`` on one file in a temporary directory (WAL,
  synchronous=NORMAL, as the engine opens it).

Every engine run uses a fresh session id, so nothing is replayed or deduplicated.
The model is a tiny in-script class that picks its turn from the conversation it
receives (it counts assistant messages) and does no file I/O; the project's
``harness.column_side.scripted_model.ScriptedModel`` appends a log line to a file on every request,
so it is kept out of the timed loop. The tools are the fixture world's pure
``get_weather`` / ``search_kb`` bodies wrapped in ``ToolSpec`` executors that never touch
the world's ledger, so the figures are the engine's cost, not the ledger's. Validators
are compiled once (``ToolRegistry`` does that), the engine, registry and stores are built
once per variant outside the timed region, and no trace is emitted (the engine's default
sink is a no-op).

Method (``bench_measure.py``): the machine may be noisy and shared, so the variants are interleaved
round-robin (the order rotates every round) and each round times one batch of runs per
variant with ``time.perf_counter_ns``; a batch is sized so that it lasts about
``--batch-ms``. The table reports the median over rounds of the per-run time, the time
per model turn (per-run / 4), and ratios computed within each round (median over
rounds), so drift in machine load cancels out. The garbage collector stays enabled: it
is part of what a real run pays.

The aims checked are the project's performance targets: in memory under 0.2 ms per run of
three tool calls, durable (SQLite) under 1 ms.

``--json PATH`` also writes the figures. That file is a timing file, machine- and
load-dependent: it is not deterministic evidence and must not be mistaken for it.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from bench_measure import interleave, summarize  # noqa: E402  (beside this script)

from handwritten.approvals import ApprovalAuthority  # noqa: E402
from handwritten.checkpoint import MemoryCheckpointStore, SqliteCheckpointStore  # noqa: E402
from handwritten.engine import Engine  # noqa: E402
from handwritten.idempotency import MemoryIdempotencyStore, SqliteIdempotencyStore  # noqa: E402
from handwritten.model import ModelReply, ToolCall  # noqa: E402
from handwritten.tools import ToolContext, ToolRegistry, ToolSpec  # noqa: E402
from harness.fixture_tools import FIXTURE_TOOLS  # noqa: E402

SCENARIO = ROOT / "scenarios" / "basic_react_loop.json"
AIM_MEMORY_US = 200.0  # "in memory under 0.2 ms per run of three tool calls"
AIM_DURABLE_US = 1000.0  # "durable under 1 ms"
# Fixture bodies that never read the world (its ledger or fault plan): safe to call with world=None.
WORLD_FREE_TOOLS = frozenset({"get_weather", "search_kb", "fetch_page", "calculator"})

BARE, MEMORY, SQLITE = "bare loop", "engine, in-memory", "engine, SQLite"


# -- the scenario, the model, the tools --------------------------------------------------------


@dataclass(frozen=True)
class Script:
    tools: tuple[str, ...]
    user_input: str
    system_prompt: str | None
    max_steps: int
    replies: tuple[ModelReply, ...]

    @property
    def model_turns(self) -> int:
        return len(self.replies)

    @property
    def tool_calls(self) -> int:
        return sum(len(r.tool_calls) for r in self.replies)


def load_script(path: Path) -> Script:
    data = json.loads(path.read_text(encoding="utf-8"))
    replies = tuple(
        ModelReply(text=t.get("text"), tool_calls=tuple(ToolCall(c["id"], c["name"], c["arguments"]) for c in t.get("tool_calls", ())))
        for t in data["model_script"]
    )
    impure = sorted(set(data["tools"]) - WORLD_FREE_TOOLS)
    if impure:
        raise SystemExit(f"error: {path.name} uses tools whose bodies touch the world: {', '.join(impure)}")
    return Script(tuple(data["tools"]), data["user_input"], data.get("system_prompt"), int(data["max_steps"]), replies)


class ReplayModel:
    """Replays the script; the turn comes from the conversation (assistant messages so far). No I/O."""

    def __init__(self, replies: Sequence[ModelReply]) -> None:
        self._replies = tuple(replies)
        self._exhausted = ModelReply(text="[replay model: no scripted turn left]")

    def complete(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> ModelReply:
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        return self._replies[turn] if turn < len(self._replies) else self._exhausted


def tool_function(name: str) -> Callable[[Any, str], Any]:
    """The fixture body of ``name`` as a plain function (args, call_id) -> output, with no world."""
    body = FIXTURE_TOOLS[name].body
    return lambda args, call_id: body(None, args, call_id)[0]


def tool_specs(names: Sequence[str]) -> list[ToolSpec]:
    def executor(fn: Callable[[Any, str], Any]) -> Callable[[Any, ToolContext], Any]:
        return lambda args, ctx: fn(args, ctx.call_id)

    return [
        ToolSpec(n, FIXTURE_TOOLS[n].description, FIXTURE_TOOLS[n].schema, FIXTURE_TOOLS[n].risk, executor(tool_function(n)))
        for n in names
    ]


# -- the variants ------------------------------------------------------------------------------


def bare_loop(script: Script, functions: Mapping[str, Callable[[Any, str], Any]]) -> list[dict[str, Any]]:
    """The same calls with nothing around them: call the function, append the messages."""
    messages: list[dict[str, Any]] = []
    if script.system_prompt:
        messages.append({"role": "system", "content": script.system_prompt})
    messages.append({"role": "user", "content": script.user_input})
    for reply in script.replies:
        if not reply.tool_calls:
            messages.append({"role": "assistant", "content": reply.text or ""})
            break
        messages.append(
            {
                "role": "assistant",
                "content": reply.text,
                "tool_calls": [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                    for c in reply.tool_calls
                ],
            }
        )
        for c in reply.tool_calls:
            output = functions[c.name](c.arguments, c.id)
            messages.append({"role": "tool", "tool_call_id": c.id, "name": c.name, "content": json.dumps(output)})
    return messages


def build_engine(script: Script, checkpoints: Any, idempotency: Any) -> Engine:
    return Engine(
        model=ReplayModel(script.replies),
        registry=ToolRegistry(tool_specs(script.tools)),
        checkpoints=checkpoints,
        idempotency=idempotency,
        approvals=ApprovalAuthority(b"bench-secret", clock=lambda: 0.0, new_token_id=lambda: "unused"),
        max_steps=script.max_steps,
        system_prompt=script.system_prompt,
    )


class Variants:
    """Each variant as ``run(n)``: n complete runs of the scenario, fresh session ids for the engine."""

    def __init__(self, script: Script, scratch: Path) -> None:
        self.script = script
        self.functions = {n: tool_function(n) for n in script.tools}
        self.memory_checkpoints = MemoryCheckpointStore()
        self.memory_engine = build_engine(script, self.memory_checkpoints, MemoryIdempotencyStore())
        db = str(scratch / "engine.sqlite")
        self.sqlite_checkpoints = SqliteCheckpointStore(db)
        self.sqlite_idempotency = SqliteIdempotencyStore(db)
        self.sqlite_engine = build_engine(script, self.sqlite_checkpoints, self.sqlite_idempotency)
        self._serial = 0
        self.runs = {MEMORY: 0, SQLITE: 0}  # engine runs made, checks included

    def close(self) -> None:
        self.sqlite_checkpoints.close()
        self.sqlite_idempotency.close()

    def _sessions(self, prefix: str, n: int) -> list[str]:
        start, self._serial = self._serial, self._serial + n
        return [f"{prefix}-{i}" for i in range(start, start + n)]

    def timed(self, name: str) -> Callable[[int], int]:
        """A function n -> elapsed ns for n runs of the variant (session ids are made outside the clock)."""
        if name == BARE:

            def bare(n: int) -> int:
                script, functions = self.script, self.functions
                t0 = time.perf_counter_ns()
                for _ in range(n):
                    bare_loop(script, functions)
                return time.perf_counter_ns() - t0

            return bare
        engine, prefix = (self.memory_engine, "mem") if name == MEMORY else (self.sqlite_engine, "sql")

        def run(n: int) -> int:
            sessions = self._sessions(prefix, n)
            self.runs[name] += n
            user_input = self.script.user_input
            t0 = time.perf_counter_ns()
            for session in sessions:
                engine.run(session, user_input, "e1")
            return time.perf_counter_ns() - t0

        return run


# -- checks ------------------------------------------------------------------------------------


def sanity_check(v: Variants) -> None:
    """Every variant must produce the same conversation before its time means anything."""
    bare = bare_loop(v.script, v.functions)
    expected_text = next(r.text for r in v.script.replies if not r.tool_calls)
    for name, engine in ((MEMORY, v.memory_engine), (SQLITE, v.sqlite_engine)):
        result = engine.run(f"check-{name}", v.script.user_input, "e1")
        v.runs[name] += 1
        problems = []
        if result.status != "completed" or result.final_text != expected_text:
            problems.append(f"status {result.status!r}, final text {result.final_text!r}")
        if result.state.step != v.script.model_turns:
            problems.append(f"{result.state.step} model turns, expected {v.script.model_turns}")
        msgs = result.state.messages
        if [m["role"] for m in msgs] != [m["role"] for m in bare]:
            problems.append(f"roles {[m['role'] for m in msgs]} differ from the bare loop's")
        tool_out = [json.loads(m["content"]) for m in msgs if m["role"] == "tool"]
        bare_out = [json.loads(m["content"]) for m in bare if m["role"] == "tool"]
        if tool_out != bare_out or len(tool_out) != v.script.tool_calls:
            problems.append(f"tool results {tool_out} differ from the bare loop's {bare_out}")
        if problems:
            raise SystemExit(f"error: {name} does not reproduce the scenario: " + "; ".join(problems))


# -- output ------------------------------------------------------------------------------------


def _ratio(x: float | None) -> str:
    return "—" if x is None else f"{x:,.1f}×" if x >= 10 else f"{x:.2f}×"


def print_table(figures: dict[str, Any]) -> None:
    header = f"{'variant':<20} {'µs/run (median)':>16} {'p25–p75':>17} {'µs/step':>9} {'× bare loop':>12} {'× in-memory':>12} {'runs/batch':>11}"
    print(header)
    print("-" * len(header))
    for name, f in figures.items():
        spread = f"{f['p25_us_per_run']:.1f}–{f['p75_us_per_run']:.1f}"
        print(
            f"{name:<20} {f['median_us_per_run']:>16.1f} {spread:>17} {f['median_us_per_model_turn']:>9.1f}"
            f" {_ratio(f['ratio_to_bare']):>12} {_ratio(f['ratio_to_memory']):>12} {f['runs_per_batch']:>11}"
        )


def aims(figures: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for name, limit, label in ((MEMORY, AIM_MEMORY_US, "in memory under 0.2 ms per run"), (SQLITE, AIM_DURABLE_US, "durable under 1 ms per run")):
        if name in figures:
            value = figures[name]["median_us_per_run"]
            out.append({"aim": label, "variant": name, "limit_us": limit, "median_us_per_run": value, "met": value < limit})
    return out


def profile(v: Variants, name: str, runs: int, top: int) -> None:
    fn = v.timed(name)
    fn(min(runs, 50))  # warm
    profiler = cProfile.Profile()
    profiler.enable()
    fn(runs)
    profiler.disable()
    print(f"\ncProfile of {name}, {runs} runs (times are inflated by the profiler; read the shares):")
    for key in ("tottime", "cumulative"):
        print(f"\n-- top {top} by {key} --")
        pstats.Stats(profiler, stream=sys.stdout).strip_dirs().sort_stats(key).print_stats(top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=100, help="interleaved rounds, one batch per variant each (default: 100, about 8 s)")
    parser.add_argument("--batch-ms", type=float, default=25.0, help="target duration of one batch in ms (default: 25)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the figures here (a timing file, not evidence)")
    parser.add_argument("--profile", choices=("memory", "sqlite"), help="after the table, cProfile this engine variant")
    parser.add_argument("--profile-runs", type=int, default=2000, help="runs under the profiler (default: 2000)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.batch_ms <= 0:
        parser.error("--rounds must be >= 1 and --batch-ms > 0")

    script = load_script(SCENARIO)
    print(f"bench_engine: {SCENARIO.name}: {script.model_turns} model turns, {script.tool_calls} tool calls per run")
    print(f"python {platform.python_version()} ({platform.python_implementation()}) on {platform.platform()}, {os.cpu_count()} CPUs")
    print(f"{args.rounds} rounds, variants interleaved round-robin, ~{args.batch_ms:g} ms per batch; gc enabled")
    print("model: in-script replay (no I/O); harness ScriptedModel (a log line per request) kept out of the timed loop")
    print("tools: pure fixture bodies (no ledger); no trace sink; engine/registry/stores built once, outside the clock")

    scratch = Path(tempfile.mkdtemp(prefix="bench-engine-"))
    variants = Variants(script, scratch)
    try:
        sanity_check(variants)
        names = (BARE, MEMORY, SQLITE)
        started = time.perf_counter()
        batch, samples = interleave({name: variants.timed(name) for name in names}, args.rounds, args.batch_ms)
        wall = time.perf_counter() - started
        figures = summarize(samples, batch, steps_per_run=script.model_turns, ratios={"ratio_to_bare": BARE, "ratio_to_memory": MEMORY})
        saves_per_run = variants.memory_checkpoints.saves / variants.runs[MEMORY]

        print()
        print_table(figures)
        print(f"\nµs/step = µs per model turn (run / {script.model_turns}); ratios are per-round ratios, median over rounds.")
        print(f"checkpoint saves per engine run: {saves_per_run:g}; measured in {wall:.1f} s")
        print()
        results = aims(figures)
        for a in results:
            verdict = "met" if a["met"] else "NOT MET"
            print(f"aim: {a['aim']:<34} {a['variant']:<18} median {a['median_us_per_run']:8.1f} µs  (limit {a['limit_us']:g} µs)  {verdict}")

        if args.json:
            document = {
                "note": "timing file: machine- and load-dependent, not deterministic evidence",
                "scenario": SCENARIO.name,
                "model_turns_per_run": script.model_turns,
                "tool_calls_per_run": script.tool_calls,
                "rounds": args.rounds,
                "batch_ms": args.batch_ms,
                "checkpoint_saves_per_run": saves_per_run,
                "variants": figures,
                "aims": results,
            }
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"\nfigures written to {args.json}")

        if args.profile:
            profile(variants, MEMORY if args.profile == "memory" else SQLITE, args.profile_runs, 25)
    finally:
        variants.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
