"""Glue lines are counted from the adapter's sources: glue files, shared glue it imports, and marked regions."""

from __future__ import annotations

from pathlib import Path

from harness.glue import count_glue_lines


def test_glue_files_shared_glue_and_marked_regions_count_their_code_lines(tmp_path: Path) -> None:
    column = tmp_path / "adapters" / "col"
    column.mkdir(parents=True)
    (tmp_path / "adapters" / "glue_common.py").write_text("s = 1\n# why\nt = 2\n", encoding="utf-8")
    (tmp_path / "adapters" / "glue_unused.py").write_text("u = 1\n", encoding="utf-8")
    (column / "glue.py").write_text('"""Doc."""\n\n# a comment\nx = 1\ny = 2\n', encoding="utf-8")
    (column / "adapter.py").write_text(
        "from adapters.glue_common import s\na = 1\n# contract glue: start\nb = 2\n\n    # why\nc = 3\n# contract glue: end\nd = 4\n",
        encoding="utf-8",
    )
    (column / "plain.py").write_text("e = 5\n", encoding="utf-8")
    assert count_glue_lines(column) == {"files": {"../glue_common.py": 2, "adapter.py": 2, "glue.py": 3}, "total": 7}
