"""The column conformance suite (``in_env/``: real test files, each written once for every column) run for every
third-party column on the column's own interpreter, in one pytest with the column's own tests
(``tests/<column>_column/in_env``: what is about its framework alone), so that the framework is imported once for both
(``tests/in_env.py``). A column is in the parametrization as soon as ``adapters/<name>/__init__.py`` declares it, with
or without tests of its own.

The reference engine runs the suite too, on the project's interpreter: every expectation the suite states for all
columns alike is the engine's behaviour. (The other project columns pass it as well, ``local_state_graph`` and
``handwritten_mcp``; each would cost a pytest of its own, as much as the suite saves elsewhere, so only the reference runs.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.columns import REFERENCE, ROOT, known_columns
from tests.in_env import run_column_tests

SUITE = Path(__file__).resolve().parent / "in_env"
THIRD_PARTY = [name for name, column in known_columns().items() if column.environment == "isolated"]


@pytest.mark.slow
@pytest.mark.parametrize("column", [REFERENCE, *THIRD_PARTY])
def test_the_column_passes_the_conformance_suite_and_its_own_tests_in_its_environment(column: str) -> None:
    own = ROOT / "tests" / f"{known_columns()[column].adapter}_column" / "in_env"  # a column at an extra pin: its adapter's
    output = run_column_tests(column, SUITE, *([own] if own.is_dir() else []))
    assert " passed" in output and "skipped" not in output, output
