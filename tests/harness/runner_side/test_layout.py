"""The house's layout holds (``docs/layout.md``): the runner is stage packages, each imports only the stages it reads,
no module imports another in a cycle, no package under the two sides holds more than eight modules, the comparison
script is only its command line, and the tests import packages rather than scripts."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.columns import ROOT

HARNESS = ROOT / "harness"
RUNNER_SIDE = HARNESS / "runner_side"
# The stages in the order the data flows, and the stages each may import: a stage reads what the stages before it made.
# ``run`` imports ``observe`` because the runner turns each record into its observables as it arrives (a race is a
# difference of observables between a scenario's two runs); ``explore`` and ``pipeline`` drive every stage.
STAGE_IMPORTS = {
    "run": {"observe"},
    "observe": set(),
    "judge": {"observe"},
    "publish": {"run", "observe", "judge"},
    "explore": {"run", "observe", "judge", "publish"},
}
MOST_MODULES = 8


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _runtime_imports(path: Path) -> Iterator[str]:
    """Every module ``path`` imports when it runs (at its top or inside a function), not those it imports only for
    the type checker (``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
                   for branch in node.body for n in ast.walk(branch)}  # fmt: skip
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


MODULES = {_module(p): p for p in sorted(HARNESS.rglob("*.py"))}
GRAPH = {name: {i for i in _runtime_imports(path) if i in MODULES and i != name} for name, path in MODULES.items()}


def _stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[:2] == ["harness", "runner_side"] and parts[2] in STAGE_IMPORTS else None


def test_each_stage_imports_only_the_stages_it_reads() -> None:
    wrong = [f"{module} imports {target}" for module, targets in GRAPH.items() if (stage := _stage(module))
             for target in targets if (other := _stage(target)) and other != stage and other not in STAGE_IMPORTS[stage]]  # fmt: skip
    assert wrong == []
    above = [f"{m} imports the pipeline" for m, targets in GRAPH.items() if "harness.runner_side.pipeline" in targets]
    assert above == []


def test_no_module_of_the_harness_imports_another_in_a_cycle() -> None:
    done: set[str] = set()

    def cycle_from(module: str, path: list[str]) -> list[str] | None:
        if module in path:
            return [*path[path.index(module):], module]
        if module in done:
            return None
        for target in sorted(GRAPH[module]):
            if found := cycle_from(target, [*path, module]):
                return found
        done.add(module)
        return None

    cycles = [" -> ".join(found) for module in sorted(GRAPH) if (found := cycle_from(module, []))]
    assert cycles == []


@pytest.mark.parametrize("side", ["runner_side", "column_side"])
def test_the_sides_never_import_each_other(side: str) -> None:
    other = "column_side" if side == "runner_side" else "runner_side"
    crossing = [f"{m} imports {t}" for m, targets in GRAPH.items() if m.startswith(f"harness.{side}") for t in targets if t.startswith(f"harness.{other}")]
    assert crossing == []


def test_no_package_under_the_two_sides_holds_more_than_eight_modules() -> None:
    packages = [init.parent for side in ("runner_side", "column_side") for init in sorted((HARNESS / side).rglob("__init__.py"))]
    crowded = {str(p.relative_to(ROOT)): n for p in packages if (n := len([m for m in p.glob("*.py") if m.name != "__init__.py"])) > MOST_MODULES}
    assert crowded == {}
    assert len(packages) > 10  # the walk found the packages (the stages, judge/rules, column_side/fixtures, ...)


def test_the_comparison_script_is_only_its_command_line() -> None:
    """Argument parsing, signals and ``main``: at most 200 lines of code (blank lines, comments and docstrings aside);
    the comparison itself is ``harness.runner_side.pipeline``."""
    source = (ROOT / "scripts" / "run_framework_comparison.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    docstrings = {n.body[0].lineno for n in ast.walk(tree) if isinstance(n, ast.Module | ast.FunctionDef) and ast.get_docstring(n)}
    spans = {line for n in ast.walk(tree) if isinstance(n, ast.Expr) and n.lineno in docstrings for line in range(n.lineno, (n.end_lineno or n.lineno) + 1)}
    code = [line for number, line in enumerate(source.splitlines(), 1) if line.strip() and not line.strip().startswith("#") and number not in spans]
    assert len(code) <= 200, len(code)
    functions = sorted(n.name for n in tree.body if isinstance(n, ast.FunctionDef))
    assert functions == ["_stop", "main", "parse_args"]


def test_at_most_two_test_files_load_a_script_by_path() -> None:
    sources = {p: p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py") if p.name != "test_layout.py"}
    loading = sorted(str(p.relative_to(ROOT)) for p, text in sources.items() if "spec_from_file_location" in text and re.search(r"[\"/]scripts[\"/]", text))
    assert len(loading) <= 2, loading
