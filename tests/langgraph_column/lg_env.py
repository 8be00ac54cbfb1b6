"""The LangGraph column's own interpreter, for tests that must run inside its environment (LangGraph is not
importable from the project's). Test modules import the fixtures (not a conftest: the handwritten tests
import their ``conftest`` by name, and a second module of that name would shadow it)."""

from __future__ import annotations

import subprocess
import textwrap
from collections.abc import Callable

import pytest

from harness.columns import ROOT, known_columns
from harness.runner_side.environments import ensure_environment


@pytest.fixture(scope="module")
def python() -> str:
    return str(ensure_environment(known_columns()["langgraph"].adapter_dir, log=lambda _: None).python)


@pytest.fixture(scope="module")
def run_in_column(python: str) -> Callable[..., str]:
    """``run_in_column(code, tmp)``: run ``code`` (with ``TMP`` bound to ``tmp``) on the column's interpreter and
    return its stdout, after asserting it exited 0."""

    def run(code: str, tmp: str, timeout: float = 300) -> str:
        script = f"import sys; sys.path.insert(0, {str(ROOT)!r}); TMP = {tmp!r}\n" + textwrap.dedent(code)
        done = subprocess.run([python, "-I", "-c", script], capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    return run
