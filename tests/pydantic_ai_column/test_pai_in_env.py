"""The Pydantic AI column's own tests (``in_env/``: its glue, tools, scripted model and sessions driven through
the harness's driver), run by the pytest pinned in its environment: Pydantic AI is importable only there."""

from __future__ import annotations

import pytest

from tests.in_env import run_column_tests


@pytest.mark.slow
def test_the_columns_in_environment_tests_pass() -> None:
    run_column_tests("pydantic_ai")
