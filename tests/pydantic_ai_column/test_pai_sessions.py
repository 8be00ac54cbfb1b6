"""The Pydantic AI column driven step by step through the harness's driver (worker processes, real kills), on
scenarios the checks bring (``in_env/session_checks.py``): a turn's decisions one at a time in reverse order in
both modes, and the contract's step bound across a resume."""

from __future__ import annotations

import pytest

from tests.pydantic_ai_column.pai_env import checks, column_python, run_check  # noqa: F401  (column_python: fixture)


@pytest.mark.slow
@pytest.mark.parametrize("name", checks("session_checks"))
def test_session(column_python: str, tmp_path, name: str) -> None:  # noqa: F811
    run_check(column_python, "session_checks", name, str(tmp_path))
