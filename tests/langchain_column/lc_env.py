"""The LangChain column's own interpreter, for tests that must run inside its environment (LangChain is not
importable from the project's). Test modules import the fixtures (not a conftest: the handwritten tests
import their ``conftest`` by name, and a second module of that name would shadow it)."""

from __future__ import annotations

import json
import subprocess
import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from harness.columns import ROOT, known_columns
from harness.runner_side.environments import ensure_environment

PRELUDE = """
import dataclasses, json, sys
sys.path.insert(0, {root!r})
from pathlib import Path
TMP = Path({tmp!r})
"""


@pytest.fixture(scope="module")
def python() -> str:
    return str(ensure_environment(known_columns()["langchain"].adapter_dir, log=lambda _: None).python)


@pytest.fixture(scope="module")
def run_in_column(python: str) -> Callable[..., Any]:
    """``run_in_column(code, tmp)``: run ``code`` (with ``TMP`` bound to the ``tmp`` path) on the column's
    interpreter, after asserting it exited 0, and return the JSON its last output line holds."""

    def run(code: str, tmp: Any, timeout: float = 300) -> Any:
        script = PRELUDE.format(root=str(ROOT), tmp=str(tmp)) + textwrap.dedent(code)
        done = subprocess.run([python, "-I", "-c", script], capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    return run
