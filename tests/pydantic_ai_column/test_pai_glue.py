"""Unit checks of the Pydantic AI column's glue, tools and scripted model (``in_env/glue_checks.py``), each run on
the column's own interpreter against the real framework."""

from __future__ import annotations

import pytest

from tests.pydantic_ai_column.pai_env import checks, column_python, run_check  # noqa: F401  (column_python: fixture)


@pytest.mark.slow
@pytest.mark.parametrize("name", checks("glue_checks"))
def test_glue(column_python: str, tmp_path, name: str) -> None:  # noqa: F811
    run_check(column_python, "glue_checks", name, str(tmp_path))
