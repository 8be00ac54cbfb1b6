"""Counting a column's glue: the contract-only code its ``contract`` mode adds over ``defaults``.

Glue lives in files named ``glue*.py`` in the adapter's folder, or between the lines
``# contract glue: start`` and ``# contract glue: end`` in any of its Python files.
A line counts when it holds code: blank lines and comment-only lines do not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

START, END = "# contract glue: start", "# contract glue: end"


def _code(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def count_glue_lines(adapter_dir: Path) -> dict[str, Any]:
    """Per file (relative to the adapter folder) and in total; files without glue are left out."""
    files: dict[str, int] = {}
    for path in sorted(adapter_dir.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        if path.name.startswith("glue"):
            count = sum(map(_code, lines))
        else:
            count, inside = 0, False
            for line in lines:
                marker = line.strip()
                if marker == START:
                    inside = True
                elif marker == END:
                    inside = False
                elif inside:
                    count += _code(line)
        if count:
            files[path.relative_to(adapter_dir).as_posix()] = count
    return {"files": files, "total": sum(files.values())}
