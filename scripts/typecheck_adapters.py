#!/usr/bin/env python3
"""Type-check every column's adapter with mypy inside the environment that runs it.

    python scripts/typecheck_adapters.py [NAME ...]     # default: every column under adapters/

A framework is installed only in its column's isolated environment, so its adapter can only be
checked against the framework's own types there: for each isolated column this builds (or
reuses) the environment with ``harness.runner_side.run.environments.column_environment`` and runs the project's
mypy (the version pinned in the dev extra, its configuration from ``pyproject.toml``) with
``--python-executable <the environment's python>``, over ``adapters/<name>`` and the shared
adapter modules (``adapters/*.py``) that the column imports, directly or through another shared
module. A column of the project's environment (``handwritten``, ``local_state_graph``) is checked
the same way with this interpreter, and so is any shared module that no column imports. Each column gets its own mypy cache (``.mypy_cache/<name>``):
the same module resolves to another framework's types in another environment.

The columns are checked side by side, as many at a time as there are cores (each mypy is its own process with its
own cache); each column's output is printed whole once it is done, then a summary line per column. Exit status 0
when every column is clean, 1 when any has errors or its environment could not be built, 2 for an unknown name.
"""

from __future__ import annotations

import argparse
import ast
import functools
import os
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from harness.columns import Column, known_columns  # noqa: E402
from harness.runner_side.run.environments import EnvironmentBuildError, column_environment  # noqa: E402

ADAPTERS = ROOT / "adapters"


def shared_modules(package: Path) -> list[Path]:
    """The shared adapter modules (``adapters/<module>.py``) the package imports, directly or through another one."""
    shared = {p.stem: p for p in ADAPTERS.glob("*.py") if p.stem != "__init__"}
    found: dict[str, Path] = {}
    pending = sorted(package.rglob("*.py"))
    while pending:
        path = pending.pop()
        for name in _imported_adapter_modules(path):
            if name in shared and name not in found:
                found[name] = shared[name]
                pending.append(shared[name])
    return [found[name] for name in sorted(found)]


def _imported_adapter_modules(path: Path) -> set[str]:
    """Names ``X`` of every ``adapters.X`` a module imports (absolute, or relative from inside ``adapters``)."""
    names: set[str] = set()
    # From a column's package ``..X`` is adapters.X; from a shared module (adapters/*.py) ``.X`` is.
    in_package = path.parent != ADAPTERS
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[1] for a in node.names if a.name.startswith("adapters.")}
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 0 and module.startswith("adapters."):
                names.add(module.split(".")[1])
            elif node.level == 0 and module == "adapters":
                names |= {a.name for a in node.names}
            elif node.level == (2 if in_package else 1):
                names |= {module.split(".")[0]} if module else {a.name for a in node.names}
    return names


def interpreter(column: Column, log: list[str]) -> Path:
    """The Python that runs the column: its isolated environment's (built or reused, its lines into ``log``), or this one."""
    if column.environment == "project":
        return Path(sys.executable)
    return column_environment(column, log=lambda line: log.append(f"  {line}")).python


def typecheck(column: Column) -> tuple[bool, str, str]:
    """Run mypy over the column's package and the shared modules it imports; (clean, summary, the whole output)."""
    package = ADAPTERS / column.adapter  # a column at an extra pin: the same adapter, checked against that pin's packages
    log = [f"== {column.name} ({column.environment} environment)"]
    try:
        clean, last, output = mypy(column.name, interpreter(column, log), [package, *shared_modules(package)])
    except EnvironmentBuildError as exc:
        clean, last, output = False, f"environment not built: {exc}", f"environment not built: {exc}"
    return clean, last, "\n".join([*log, output])


def mypy(label: str, python: Path, targets: list[Path]) -> tuple[bool, str, str]:
    """Run the project's mypy over ``targets`` against the packages of ``python``; (clean, its last line, the command and output)."""
    # Only the column's own modules are reported: handwritten/ and harness/ are checked in the project's environment
    # (where their stubs are installed); here they only lend their types.
    command = [sys.executable, "-m", "mypy", "--python-executable", str(python), "--follow-imports", "silent"]
    command += ["--cache-dir", str(ROOT / ".mypy_cache" / label)]
    command += [str(t.relative_to(ROOT)) for t in targets]
    shown = f"$ mypy --python-executable {python} --follow-imports silent {' '.join(str(t.relative_to(ROOT)) for t in targets)}"
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    output = (result.stdout + result.stderr).strip()
    last = output.splitlines()[-1] if output else f"mypy exited {result.returncode}"
    return result.returncode == 0, last, f"{shown}\n{output}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", metavar="NAME", help="columns to check (default: every column)")
    args = parser.parse_args(argv)
    columns = known_columns()
    unknown = [n for n in args.names if n not in columns]
    if unknown:
        parser.error(f"unknown column(s) {', '.join(unknown)}; known: {', '.join(columns)}")
    summary: list[tuple[str, bool, str, float]] = []

    def timed(job: Callable[[], tuple[bool, str, str]]) -> tuple[bool, str, str, float]:
        started = time.perf_counter()
        return (*job(), time.perf_counter() - started)

    jobs: dict[str, Callable[[], tuple[bool, str, str]]] = {name: functools.partial(typecheck, columns[name]) for name in args.names or list(columns)}
    unused = sorted(set(ADAPTERS.glob("*.py")) - {ADAPTERS / "__init__.py"} - {m for c in columns.values() for m in shared_modules(ADAPTERS / c.adapter)})
    if unused and not args.names:  # a shared module no column imports is still checked, in the project's environment
        jobs["(unused shared)"] = lambda: _labelled("== shared modules no column imports (project environment)", mypy("unused-shared", Path(sys.executable), unused))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for name, (clean, last, output, seconds) in zip(jobs, pool.map(timed, jobs.values()), strict=True):
            print(output, flush=True)
            summary.append((name, clean, last, seconds))
    print("\ntypecheck_adapters:")
    for name, clean, last, seconds in summary:
        print(f"  {name:<18} {'ok    ' if clean else 'FAILED'} {seconds:5.1f} s  {last}")
    return 0 if all(clean for _, clean, _, _ in summary) else 1


def _labelled(title: str, result: tuple[bool, str, str]) -> tuple[bool, str, str]:
    clean, last, output = result
    return clean, last, f"{title}\n{output}"


if __name__ == "__main__":
    sys.exit(main())
