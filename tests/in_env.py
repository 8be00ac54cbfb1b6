"""Running in-environment tests on a column's own interpreter, with the pytest pinned in its environment.

A framework is importable only from its column's isolated environment, so the tests that use it (real test files in
``in_env`` folders: the conformance suite every column passes, ``tests/column_conformance/in_env``, and a column's own,
``tests/<column>_column/in_env``) run there: ``<env python> -I -m pytest``, with the pytest pinned in the column's
``requirements.in`` (a project column's: the project's interpreter). ``COLUMN`` names the column under test. The
project's pytest never collects them (``tests/conftest.py`` ignores every ``in_env`` folder), and the inner run loads no
configuration of the project's (its configuration is the first folder's ``pytest.ini``) and no conftest above the first
folder (its ``--confcutdir``): the project's ``tests/conftest.py`` stays out.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from harness.columns import ROOT, known_columns
from harness.runner_side.run.environments import column_environment


def run_column_tests(column: str, *folders: Path, timeout_s: float = 900) -> str:
    """Run the in-environment test ``folders`` in one pytest on ``column``'s interpreter (its framework imported once for
    all of them), ``COLUMN`` set to the column; its output, after asserting that tests ran and all passed (pytest's exit 5,
    no tests collected, fails too)."""
    declared = known_columns()[column]
    python = column_environment(declared, log=lambda _: None).python if declared.environment == "isolated" else Path(sys.executable)
    first, rootdir = folders[0], Path(os.path.commonpath(folders))
    command = [str(python), "-I", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(first / "pytest.ini"),
               "--rootdir", str(rootdir), "--confcutdir", str(first), *map(str, folders)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s, env={**os.environ, "COLUMN": column})
    assert done.returncode == 0, f"{column}'s in-environment tests exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout
