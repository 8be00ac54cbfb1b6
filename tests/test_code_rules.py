"""Code rules of the repository that a linter does not check: module size and how tests share code."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 400  # one module per concept: past this, a module holds more than one
SOURCE_DIRS = ("handwritten", "harness", "adapters", "scripts")


def _python_files(*dirs: str) -> list[Path]:
    return sorted(p for d in dirs for p in (ROOT / d).rglob("*.py") if "__pycache__" not in p.parts)


def test_no_module_is_over_400_lines() -> None:
    too_long = {str(p.relative_to(ROOT)): n for p in _python_files(*SOURCE_DIRS) if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert too_long == {}, f"modules over {MAX_LINES} lines (split them by concept): {too_long}"


def test_no_test_imports_a_conftest_by_name() -> None:
    """A conftest is pytest's, not a module: every directory has one, and ``import conftest`` gets whichever
    was imported last. Shared helpers live in a module of their own; fixtures reach tests as fixtures."""
    offenders = []
    for path in _python_files("tests"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n == "conftest" or n.endswith(".conftest") for n in names):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == [], f"imports of a conftest by name: {offenders}"


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports (``import x`` and ``from x import y``, also inside functions and TYPE_CHECKING)."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return out


def test_the_two_sides_of_the_harness_never_import_each_other() -> None:
    """What runs inside a column process (``harness/column_side``) and what runs in the runner
    (``harness/runner_side``) exchange only the records and definitions at the top of ``harness``:
    neither imports the other, and the shared modules import neither."""
    sides = {"column_side": "harness.runner_side", "runner_side": "harness.column_side"}
    offenders = []
    for path in _python_files("harness"):
        top = path.relative_to(ROOT / "harness").parts[0]  # a package inside a side (column_side/mcp) is on that side
        side = top if top in sides else None
        forbidden = [sides[side]] if side else list(sides.values())
        offenders += [f"{path.relative_to(ROOT)}:{line} imports {name}" for line, name in _imports(path)
                      if any(name == f or name.startswith(f + ".") for f in forbidden)]
    assert offenders == []
