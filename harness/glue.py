"""Counting a column's glue: the contract-only code its ``contract`` mode adds over ``defaults``.

Glue lives in files named ``glue*.py`` in the adapter's folder, in shared ``glue*.py``
modules beside the adapters' folders (counted for every column that imports them), or
between the lines ``# contract glue: start`` and ``# contract glue: end`` in any of the
column's Python files. A line counts when it holds code: blank lines and comment-only
lines do not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

START, END = "# contract glue: start", "# contract glue: end"


def _code(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _marked(lines: list[str]) -> int:
    count, inside = 0, False
    for line in lines:
        marker = line.strip()
        if marker in (START, END):
            inside = marker == START
        elif inside:
            count += _code(line)
    return count


def count_glue_lines(adapter_dir: Path) -> dict[str, Any]:
    """Per file (relative to the adapter folder) and in total; files without glue are left out."""
    files: dict[str, int] = {}
    sources = sorted(adapter_dir.rglob("*.py"))
    texts = {path: path.read_text(encoding="utf-8") for path in sources}
    for path, text in texts.items():
        lines = text.splitlines()
        count = sum(map(_code, lines)) if path.name.startswith("glue") else _marked(lines)
        if count:
            files[path.relative_to(adapter_dir).as_posix()] = count
    for shared in sorted(adapter_dir.parent.glob("glue*.py")):
        module = f"{adapter_dir.parent.name}.{shared.stem}"
        if any(module in text for text in texts.values()):
            files[f"../{shared.name}"] = sum(map(_code, shared.read_text(encoding="utf-8").splitlines()))
    return {"files": files, "total": sum(files.values())}
