"""``scripts/bench_plot.py`` writes the same SVG bytes from the same rows (no date, no random ids), with every series'
label as text in the file: the plots committed under docs/ change only when their figures do. Made-up rows; no
benchmark runs."""

from __future__ import annotations

import datetime
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("matplotlib")  # the bench extra (in dev)

SCRIPT = Path(__file__).resolve().parent.parent.parent / "scripts" / "bench_plot.py"
CAPTION_ARGS = ("scripts/bench_scaling.py", ["--sizes", "10", "50", "200", "--plot", "docs/plots/scaling.svg"])
WHEN = datetime.date(2026, 12, 2)


def _bench_plot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_plot", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_plot", module)
    spec.loader.exec_module(module)
    return module


bench_plot = _bench_plot()
LINES = [
    bench_plot.Line("handwritten contract", [(10, 0.2), (50, 0.5), (200, 1.9)], group="handwritten"),
    bench_plot.Line("langgraph defaults", [(10, 0.6), (50, 1.4), (200, 5.5)], group="langgraph", dashed=True),
    bench_plot.Line("langgraph contract", [(200, 6.0), (10, 0.7), (50, 1.6)], group="langgraph"),
]
GROUPS = ["bare loop", "langgraph", "pydantic_ai"]
BARS = {"import s": [0.2, 6.5, 5.4], "build ms": [None, 1.3, 0.6], "run ms": [0.04, 56.7, 20.1], "saved B/turn": [None, 5.0, 1.6]}


def _draw(kind: str, path: Path) -> bytes:
    caption = bench_plot.caption(*CAPTION_ARGS, when=WHEN, note="made-up rows")
    if kind == "lines":
        bench_plot.lines(LINES, path, title="Wall time by turns", xlabel="model turns", ylabel="wall s", caption=caption)
    else:
        bench_plot.bars(GROUPS, BARS, path, title="Ratio to the engine", ylabel="x engine", caption=caption, baseline_label="engine = 1")
    return path.read_bytes()


@pytest.mark.parametrize("kind", ["lines", "bars"])
def test_the_same_rows_give_the_same_svg_bytes_with_every_label(kind: str, tmp_path: Path) -> None:
    first, second = _draw(kind, tmp_path / "first.svg"), _draw(kind, tmp_path / "second.svg")
    assert first == second
    text = first.decode("utf-8")
    assert text.lstrip().startswith("<?xml") and "</svg>" in text
    labels = [line.label for line in LINES] if kind == "lines" else [*BARS, *GROUPS, "engine = 1"]
    for label in labels:
        assert f">{label}<" in text, label
    assert "Measured 2026-12-02 on " in text and ">python scripts/bench_scaling.py --sizes 10 50 200 --plot docs/plots/scaling.svg<" in text  # when, how
    assert "<dc:date>" not in text  # no date of drawing in the metadata


def test_the_caption_says_date_machine_and_command() -> None:
    caption = bench_plot.caption("scripts/bench_overhead.py", ["--rounds", "4", "--plot", "docs/plots/overhead.svg"], when=WHEN, note="4 rounds")
    assert caption.startswith("Measured 2026-12-02 on ")
    assert "CPUs, Python " in caption
    assert caption.endswith(" (4 rounds), with:\npython scripts/bench_overhead.py --rounds 4 --plot docs/plots/overhead.svg")
