"""Smoke test of ``scripts/bench_mcp.py``: a tiny run prints the table of the four paths with positive figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
pytestmark = pytest.mark.slow  # starts two MCP server processes (stdio and Streamable HTTP)

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "scripts" / "bench_mcp.py"
PATHS = ["(a) boundary, in process", "(b) MCP SDK, in process", "(c) MCP over stdio", "(d) MCP over Streamable HTTP"]


def test_a_tiny_run_prints_the_four_paths_with_positive_numbers(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    args = ["--rounds", "2", "--batch", "2", "--warmup", "1", "--json", str(out)]
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {cells[0]: cells[1:] for line in done.stdout.splitlines() if line.startswith("| (") for cells in [[c.strip() for c in line.strip("|").split("|")]]}
    assert list(rows) == PATHS
    for name, cells in rows.items():
        assert len(cells) == 6, cells
        read_us, write_us, read_ratio, write_ratio = (float(c) for c in cells[:4])
        assert min(read_us, write_us, read_ratio, write_ratio) > 0, (name, cells)
        assert all(c.endswith(" %") and float(c.rstrip(" %")) >= 0 for c in cells[4:]), (name, cells)
    assert rows[PATHS[0]][2:4] == ["1.0", "1.0"]  # (a) is the base of the ratios
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert set(PATHS) <= set(figures["paths"]) and all(figures["paths"][p]["write"]["median_us"] > 0 for p in PATHS)
    # The policy's share, unrounded (the table shows one decimal: a slow path's share can print as 0.0 %).
    assert all(figures["paths"][p][kind]["policy_share"] > 0 for p in PATHS for kind in ("read", "write"))
