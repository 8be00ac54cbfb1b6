"""The LangChain column's framework tests (``in_env/test_*.py``: its contract glue, decisions by call id on the
batched HITL, the step bound across a resume, the forced orderings of the asynchronous checkpoint write), run by the
pytest pinned in the column's own environment: LangChain is importable only there."""

from __future__ import annotations

import pytest

from tests.in_env import run_column_tests


@pytest.mark.slow
def test_the_langchain_columns_in_environment_tests_pass() -> None:
    run_column_tests("langchain")
