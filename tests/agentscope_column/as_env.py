"""The AgentScope column's own interpreter, for tests that must run inside its environment (AgentScope is not
importable from the project's). Test modules import the fixtures (not a conftest: the handwritten tests import
their ``conftest`` by name, and a second module of that name would shadow it); each is registered under the name a
test asks for, and defined under another so that the import is not shadowed by the test's parameter."""

from __future__ import annotations

import json
import subprocess
import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from harness.columns import ROOT, known_columns
from harness.runner_side.environments import ensure_environment


@pytest.fixture(scope="module", name="column_python")
def column_python_fixture() -> str:
    return str(ensure_environment(known_columns()["agentscope"].adapter_dir, log=lambda _: None).python)


@pytest.fixture(scope="module", name="run_in_column")
def run_in_column_fixture(column_python: str) -> Callable[..., Any]:
    """``run_in_column(code, tmp)``: run ``code`` (with ``TMP`` bound to ``tmp``) on the column's interpreter,
    assert it exited 0 and return the JSON document it printed last."""

    def run(code: str, tmp: str, timeout: float = 300) -> Any:
        script = f"import sys; sys.path.insert(0, {str(ROOT)!r}); TMP = {tmp!r}\n" + textwrap.dedent(code)
        done = subprocess.run([column_python, "-I", "-c", script], capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    return run
