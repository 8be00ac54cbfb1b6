"""Running a column's own tests on its own interpreter, with the pytest pinned in its environment.

A framework is importable only from its column's isolated environment, so the tests that use it
(``tests/<column>_column/in_env/test_*.py``, real test files) run there: ``<env python> -I -m pytest``,
with the pytest pinned in the column's ``requirements.in``. The project's pytest never collects
them (``tests/conftest.py`` ignores every ``in_env`` folder), and the inner run loads no conftest
or configuration of the project's (its root and its conftest boundary are the ``in_env`` folder).
"""

from __future__ import annotations

import subprocess

from harness.columns import ROOT, known_columns
from harness.runner_side.environments import ensure_environment


def run_column_tests(column: str, timeout_s: float = 900) -> str:
    """Run ``tests/<column>_column/in_env`` with the column's own pytest; its output, after asserting that tests
    ran and all passed (pytest's exit 5, no tests collected, fails too)."""
    folder = ROOT / "tests" / f"{column}_column" / "in_env"
    python = ensure_environment(known_columns()[column].adapter_dir, log=lambda _: None).python
    command = [str(python), "-I", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(folder / "pytest.ini"),
               "--rootdir", str(folder), "--confcutdir", str(folder), str(folder)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s)
    assert done.returncode == 0, f"{column}'s in-environment tests exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout
