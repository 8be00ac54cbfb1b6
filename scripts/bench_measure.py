"""Interleaved timing of benchmark variants and the statistics over its rounds (used by ``bench_engine.py``).

Each variant is a function ``n -> elapsed ns`` for n runs. The variants are interleaved
round-robin (the order rotates every round), each round timing one batch per variant, so a
noisy, shared machine's drift hits every variant alike; ratios are taken within a round.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Timed = Callable[[int], int]  # n runs -> elapsed nanoseconds


def calibrate(fn: Timed, batch_ns: int) -> int:
    """Runs per batch so that a batch lasts about ``batch_ns`` (after a short warm-up)."""
    n = 1
    while True:
        elapsed = fn(n)
        if elapsed >= batch_ns / 4 or n >= 1 << 20:
            return max(1, round(n * batch_ns / max(elapsed, 1)))
        n *= 2


def interleave(fns: Mapping[str, Timed], rounds: int, batch_ms: float) -> tuple[dict[str, int], dict[str, list[float]]]:
    """Runs per batch of each variant, and its µs per run in every round."""
    names = list(fns)
    batch = {name: calibrate(fns[name], int(batch_ms * 1e6)) for name in names}
    samples: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:  # round-robin, rotating who goes first
            samples[name].append(fns[name](batch[name]) / batch[name] / 1000.0)  # µs per run
    return batch, samples


def quartiles(xs: Sequence[float]) -> tuple[float, float]:
    if len(xs) < 2:
        return xs[0], xs[0]
    q = statistics.quantiles(xs, n=4)
    return q[0], q[2]


def summarize(samples: Mapping[str, list[float]], batch: Mapping[str, int], *, steps_per_run: int, ratios: Mapping[str, str]) -> dict[str, Any]:
    """Figures per variant; ``ratios`` maps a figure's name to the variant it divides by (None when not measured)."""
    rounds = len(next(iter(samples.values())))
    out: dict[str, Any] = {}
    for name, xs in samples.items():
        lo, hi = quartiles(xs)
        per_run = statistics.median(xs)
        out[name] = {
            "runs_per_batch": batch[name],
            "median_us_per_run": per_run,
            "p25_us_per_run": lo,
            "p75_us_per_run": hi,
            "min_us_per_run": min(xs),
            "median_us_per_model_turn": per_run / steps_per_run,
        }
        for figure, base in ratios.items():
            # ratios within each round, then the median: load drift between rounds cancels out
            out[name][figure] = statistics.median(xs[i] / samples[base][i] for i in range(rounds)) if base in samples else None
        out[name]["samples_us_per_run"] = [round(x, 3) for x in xs]
    return out
