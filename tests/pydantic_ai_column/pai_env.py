"""The Pydantic AI column's own interpreter for the checks in ``in_env/`` (Pydantic AI is not importable from the
project's environment). Each ``check_*`` function there is a test of its own: ``checks(module)`` lists them
without importing the module, ``run_check`` runs one on the column's interpreter with a scratch directory."""

from __future__ import annotations

import ast
import subprocess

import pytest

from harness.columns import ROOT, known_columns
from harness.runner_side.environments import ensure_environment

IN_ENV = ROOT / "tests" / "pydantic_ai_column" / "in_env"
_BOOT = (
    "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); import importlib; "
    "getattr(importlib.import_module('tests.pydantic_ai_column.in_env.' + sys.argv[2]), sys.argv[3])(Path(sys.argv[4]))"
)


def checks(module: str) -> list[str]:
    """The ``check_*`` functions of ``in_env/<module>.py``, in file order."""
    tree = ast.parse((IN_ENV / f"{module}.py").read_text(encoding="utf-8"))
    return [node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("check_")]


@pytest.fixture(scope="module")
def column_python() -> str:
    return str(ensure_environment(known_columns()["pydantic_ai"].adapter_dir, log=lambda _: None).python)


def run_check(python: str, module: str, name: str, tmp: str, timeout: float = 300) -> None:
    """Run ``in_env/<module>.py:<name>(Path(tmp))`` on ``python``; its failure (traceback) fails the test."""
    done = subprocess.run([python, "-I", "-c", _BOOT, str(ROOT), module, name, tmp], capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout + done.stderr
