"""Glue lines are counted from the adapter's sources: glue files and marked regions, code lines only."""

from __future__ import annotations

from pathlib import Path

from harness.glue import count_glue_lines


def test_glue_files_and_marked_regions_count_their_code_lines(tmp_path: Path) -> None:
    (tmp_path / "glue.py").write_text('"""Doc."""\n\n# a comment\nx = 1\ny = 2\n', encoding="utf-8")
    (tmp_path / "adapter.py").write_text(
        "a = 1\n# contract glue: start\nb = 2\n\n    # why\nc = 3\n# contract glue: end\nd = 4\n", encoding="utf-8"
    )
    (tmp_path / "plain.py").write_text("e = 5\n", encoding="utf-8")
    assert count_glue_lines(tmp_path) == {"files": {"adapter.py": 2, "glue.py": 3}, "total": 5}
