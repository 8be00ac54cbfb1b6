"""Counting a column's glue: the contract-only code its ``contract`` mode adds over ``defaults``.

Only code lines count: blank lines, comments and docstrings (module, class and function
docstrings, and any other bare string statement: none compiles to code) do not. A line counts
when it is glue wherever it sits:

- the whole of every ``glue*.py`` in the column's folder (``glue.py``);
- the lines between ``# contract glue: start`` and ``# contract glue: end`` in any of the
  column's files, and in any shared ``adapters/*.py`` the column imports, directly or through
  another shared module (``../column.py``: the base ``FrameworkColumn``, so its marked regions
  count for every framework column);
- the whole of any other shared ``adapters/glue*.py`` the column imports (none today);
- the blocks of ``adapters/glue_blocks.py`` (``# contract glue block: <name>`` ... ``# contract
  glue block end``) the column uses (``../glue_blocks.py#<name>``): a block counts when a file of
  the column, or a shared module it imports (the base among them), takes from ``glue_blocks`` a
  name the block defines, and so does every block (or top-level statement outside any block,
  reported together as ``#module``) whose names a counted one uses, transitively.

Nothing ``defaults`` runs may be counted: a mode test (``if contract is not None:``) runs in both
modes, so it stays outside the markers and only its body goes inside.

``glue_parts`` gives the counted line numbers themselves (``harness.runner_side.run.glue_coverage`` checks them
against what each mode runs); ``count_glue_lines`` gives the numbers the evidence reports.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

START, END = "# contract glue: start", "# contract glue: end"
BLOCK_START, BLOCK_END = "# contract glue block:", "# contract glue block end"
BLOCKS_FILE = "glue_blocks.py"
MODULE_PART = "module"  # the label of glue_blocks.py's statements outside any block
_NOT_CODE = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER, tokenize.ENCODING}


@dataclass(frozen=True)
class GluePart:
    """Counted glue in one place: ``label`` as the evidence reports it (relative to the column's folder,
    ``../`` for shared files, ``#<block>`` for a block of glue_blocks.py), the file, and its code lines."""

    label: str
    path: Path
    lines: frozenset[int]


def code_lines(source: str) -> set[int]:
    """The line numbers holding code: a token other than a comment, and not part of a bare string statement."""
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in _NOT_CODE:
            lines.update(range(token.start[0], token.end[0] + 1))
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            lines.difference_update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def _regions(path: Path, source: str, start: str, end: str) -> list[tuple[str, int, int]]:
    """``(text after the start marker, first line, last line)`` of every region between the markers."""
    regions: list[tuple[str, int, int]] = []
    opened: tuple[str, int] | None = None
    for number, line in enumerate(source.splitlines(), start=1):
        marker = line.strip()
        if marker.startswith(start):
            if opened is not None:
                raise ValueError(f"{path}:{number}: {start!r} inside the region opened on line {opened[1]}")
            opened = (marker[len(start) :].strip(), number)
        elif marker == end:
            if opened is None:
                raise ValueError(f"{path}:{number}: {end!r} without {start!r}")
            regions.append((opened[0], opened[1] + 1, number - 1))
            opened = None
    if opened is not None:
        raise ValueError(f"{path}:{opened[1]}: {start!r} never closed")
    return regions


def marked_lines(path: Path, source: str) -> set[int]:
    """The code lines between ``# contract glue: start`` and ``# contract glue: end`` markers."""
    inside = {n for _, first, last in _regions(path, source, START, END) for n in range(first, last + 1)}
    return code_lines(source) & inside


@dataclass(frozen=True)
class _Unit:
    """A block of glue_blocks.py (or one top-level statement outside the blocks): its lines and names."""

    label: str
    lines: frozenset[int]
    defines: frozenset[str]
    uses: frozenset[str]


def _defined(statement: ast.stmt) -> set[str]:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in statement.names}
    return {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _block_units(path: Path) -> list[_Unit]:
    source = path.read_text(encoding="utf-8")
    tree, code = ast.parse(source), code_lines(source)
    units: list[_Unit] = []
    statements = list(tree.body)
    for name, first, last in _regions(path, source, BLOCK_START, BLOCK_END):
        if not name or any(u.label == name for u in units):
            raise ValueError(f"{path}:{first - 1}: a glue block needs a name of its own, not {name!r}")
        inside = [s for s in statements if first <= s.lineno <= last]
        if any(_span(s)[1] > last for s in inside):
            raise ValueError(f"{path}: a statement of block {name!r} runs past its end marker (line {last + 1})")
        statements = [s for s in statements if s not in inside]
        units.append(_unit(name, inside, code & set(range(first, last + 1))))
    for statement in statements:  # outside every block: counted only when a counted block needs it
        first, last = _span(statement)
        units.append(_unit(MODULE_PART, [statement], code & set(range(first, last + 1))))
    return units


def _span(statement: ast.stmt) -> tuple[int, int]:
    decorators = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(d.lineno for d in decorators)]), statement.end_lineno or statement.lineno


def _unit(label: str, statements: list[ast.stmt], lines: set[int]) -> _Unit:
    defines = set().union(*(_defined(s) for s in statements))
    uses = {n.id for s in statements for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return _Unit(label, frozenset(lines), frozenset(defines), frozenset(uses))


def _counted_units(units: list[_Unit], names: set[str]) -> list[_Unit]:
    """The units defining any of ``names``, closed over the names those units use in turn."""
    counted: set[int] = set()
    seen, frontier = set(names), set(names)
    while frontier:
        new = {i for i, u in enumerate(units) if i not in counted and u.defines & frontier}
        counted |= new
        frontier = set().union(*(units[i].uses for i in new)) - seen
        seen |= frontier
    return [units[i] for i in sorted(counted)]


@dataclass
class _References:
    """What a set of files takes from the shared ``adapters/`` modules."""

    modules: set[str]  # shared module names (stems) imported
    block_names: set[str]  # names taken from glue_blocks


def _package(path: Path, root: Path) -> list[str]:
    """The dotted package holding ``path`` (a file under ``root``, the ``adapters`` folder)."""
    return [root.name, *path.parent.relative_to(root).parts]


def _references(path: Path, root: Path) -> _References:
    """The shared modules ``path`` imports and the names it takes from glue_blocks (by import, or as an
    attribute of the module: ``glue_blocks.run_once``)."""
    package, blocks = _package(path, root), f"{root.name}.{Path(BLOCKS_FILE).stem}"
    refs, aliases = _References(set(), set()), {blocks}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                _add_module(refs, root, alias.name)
                if alias.name == blocks and alias.asname:
                    aliases.add(alias.asname)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            _add_module(refs, root, module)
            for alias in node.names:
                _add_module(refs, root, f"{module}.{alias.name}")
                if module == blocks:
                    refs.block_names.add(alias.name)
                elif f"{module}.{alias.name}" == blocks:
                    aliases.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _dotted(node.value) in aliases:
            refs.block_names.add(node.attr)
    return refs


def _add_module(refs: _References, root: Path, module: str) -> None:
    parts = module.split(".")
    if len(parts) == 2 and parts[0] == root.name and (root / f"{parts[1]}.py").is_file():
        refs.modules.add(parts[1])


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (inner := _dotted(node.value)) is not None:
        return f"{inner}.{node.attr}"
    return None


def _file_glue(path: Path) -> frozenset[int]:
    """A ``glue*.py`` file's code lines, or another file's marked ones."""
    source = path.read_text(encoding="utf-8")
    return frozenset(code_lines(source) if path.name.startswith("glue") else marked_lines(path, source))


def glue_parts(adapter_dir: Path) -> list[GluePart]:
    """Every place the column's glue is counted, with its code lines (parts without code are left out)."""
    adapter_dir = adapter_dir.resolve()
    root = adapter_dir.parent
    parts: list[GluePart] = []
    own = sorted(adapter_dir.rglob("*.py"))
    shared: set[str] = set()
    names: set[str] = set()
    for path in own:
        parts.append(GluePart(path.relative_to(adapter_dir).as_posix(), path, _file_glue(path)))
        refs = _references(path, root)
        shared |= refs.modules
        names |= refs.block_names
    todo = set(shared)
    while todo:  # shared modules the column imports through other shared modules count too
        refs = _references(root / f"{todo.pop()}.py", root)
        names |= refs.block_names
        todo |= refs.modules - shared
        shared |= refs.modules
    for stem in sorted(shared - {Path(BLOCKS_FILE).stem}):
        parts.append(GluePart(f"../{stem}.py", root / f"{stem}.py", _file_glue(root / f"{stem}.py")))
    if (root / BLOCKS_FILE).is_file():
        counted = _counted_units(_block_units(root / BLOCKS_FILE), names)
        for label in dict.fromkeys(u.label for u in counted):
            block = frozenset().union(*(u.lines for u in counted if u.label == label))
            parts.append(GluePart(f"../{BLOCKS_FILE}#{label}", root / BLOCKS_FILE, block))
    return [p for p in parts if p.lines]


def counted_lines(parts: Iterable[GluePart]) -> dict[Path, set[int]]:
    """The counted line numbers per file."""
    lines: dict[Path, set[int]] = {}
    for part in parts:
        lines.setdefault(part.path, set()).update(part.lines)
    return lines


def count_glue_lines(adapter_dir: Path) -> dict[str, Any]:
    """Code lines per part (see the module docstring) and in total; parts without glue are left out."""
    files = {p.label: len(p.lines) for p in sorted(glue_parts(adapter_dir), key=lambda p: p.label)}
    return {"files": files, "total": sum(files.values())}
