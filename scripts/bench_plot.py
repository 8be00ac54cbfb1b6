"""The benchmarks' plots: deterministic SVG from their rows (``bench_scaling.py --plot``, ``bench_overhead.py --plot``).

Needs the ``bench`` extra (matplotlib, ``pip install -e ".[bench]"``; in ``dev`` too), never the core: the core goes into
every framework's environment. The same rows and caption give the same bytes: the Agg backend, a fixed
``svg.hashsalt`` (the clip paths' ids), no date in the metadata, text kept as SVG ``<text>`` (a label is searchable in the
file, and no glyph cache decides the output). The caption says when, where and with which command the figures were
measured (``caption``): a plot is a measurement of one machine on one day, like the tables it pictures.
"""

from __future__ import annotations

import datetime
import os
import platform
import shlex
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display; before pyplot is imported

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator  # noqa: E402
from matplotlib.typing import RcKeyType  # noqa: E402

STYLE: dict[RcKeyType, Any] = {
    "svg.hashsalt": "agent-framework-bench",  # ids from a fixed salt, not a random one
    "svg.fonttype": "none",  # text as <text>, not glyph paths
    "font.family": "DejaVu Sans",  # shipped with matplotlib: the same metrics on every machine
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
METADATA: dict[str, str | None] = {"Date": None, "Creator": "scripts/bench_plot.py (matplotlib)"}
CAPTION_WIDTH = 135  # characters per caption line
# Colours by group, in order of first appearance (matplotlib's tab10, then tab20's light shades).
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
           "#aec7e8", "#ffbb78", "#98df8a", "#ff9896")  # fmt: skip


@dataclass(frozen=True)
class Line:
    """One series of a line plot: its legend label, its (x, y) points; the lines of one ``group`` share a colour."""

    label: str
    points: Sequence[tuple[float, float]]
    group: str = ""
    dashed: bool = False


def caption(script: str, argv: Sequence[str], *, when: datetime.date | None = None, note: str = "") -> str:
    """``Measured <date> on <machine> (<note>), with:`` and, on a line of its own, ``python <script> <args>``: what the
    docs say beside a table."""
    machine = f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    day = (when or datetime.date.today()).isoformat()
    return f"Measured {day} on {machine}" + (f" ({note})" if note else "") + ", with:\n" + shlex.join(["python", script, *argv])


def lines(series: Sequence[Line], path: Path, *, title: str, xlabel: str, ylabel: str, caption: str, log: bool = True) -> None:
    """A line per series (markers at the measured points), log-log unless ``log`` is false, written as SVG to ``path``."""
    with plt.rc_context(STYLE):
        figure, axes = plt.subplots(figsize=(8.0, 5.0))
        colour = _colours([line.group or line.label for line in series])
        for line in series:
            xs, ys = zip(*sorted(line.points), strict=True) if line.points else ((), ())
            axes.plot(xs, ys, marker="o", markersize=3.5, linewidth=1.4, linestyle="--" if line.dashed else "-",
                      color=colour[line.group or line.label], label=line.label)  # fmt: skip
        if log:
            axes.set_xscale("log")
            _log_y(axes)
        xs_all = sorted({x for line in series for x, _ in line.points})
        if xs_all:
            axes.minorticks_off()
            axes.set_xticks(xs_all, [f"{x:g}" for x in xs_all])
        axes.grid(True, which="major", linewidth=0.4, alpha=0.5)
        axes.set(title=title, xlabel=xlabel, ylabel=ylabel)
        axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)
        _write(figure, path, caption)


def bars(groups: Sequence[str], series: Mapping[str, Sequence[float | None]], path: Path, *, title: str, ylabel: str, caption: str,
         baseline: float | None = 1.0, baseline_label: str = "", log: bool = True) -> None:  # fmt: skip
    """Grouped bars: one group per name in ``groups``, one bar per series in each (``None``: no bar), a legend of the
    series, a dotted line at ``baseline`` (the reference every ratio divides by), written as SVG to ``path``."""
    with plt.rc_context(STYLE):
        figure, axes = plt.subplots(figsize=(9.0, 5.0))
        colour = _colours(list(series))
        width = 0.8 / max(len(series), 1)
        bottom = baseline if baseline is not None else 0.0  # a ratio below the baseline is a bar going down from it
        for i, (label, values) in enumerate(series.items()):
            at = [(g + (i - (len(series) - 1) / 2) * width, v) for g, v in enumerate(values) if v is not None]
            axes.bar([x for x, _ in at], [v - bottom for _, v in at], bottom=bottom, width=width * 0.92, color=colour[label], label=label)
        if log:
            _log_y(axes)
        if baseline is not None:
            axes.axhline(baseline, color="#333333", linestyle=":", linewidth=1.0, label=baseline_label or None)
        axes.set_xticks(range(len(groups)), list(groups))
        axes.grid(True, axis="y", which="major", linewidth=0.4, alpha=0.5)
        axes.set(title=title, ylabel=ylabel)
        axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)
        _write(figure, path, caption)


def _log_y(axes: Axes) -> None:
    """A log y axis labelled at 1, 2 and 5 times each power of ten, as plain numbers."""
    axes.set_yscale("log")
    axes.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
    axes.minorticks_off()


def _colours(keys: Sequence[str]) -> dict[str, str]:
    order = list(dict.fromkeys(keys))
    return {key: COLOURS[i % len(COLOURS)] for i, key in enumerate(order)}


def _write(figure: Figure, path: Path, caption: str) -> None:
    """The caption under the axes, then the SVG, without a date (the caption carries the measurement's date)."""
    wrapped = "\n".join(textwrap.fill(line, CAPTION_WIDTH, break_long_words=False, break_on_hyphens=False) for line in caption.splitlines())
    figure.text(0.01, 0.01, wrapped, fontsize=7, color="#444444", ha="left", va="bottom")
    figure.tight_layout(rect=(0.0, 0.04 + 0.025 * wrapped.count("\n"), 1.0, 1.0))
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="svg", metadata=METADATA)
    plt.close(figure)
