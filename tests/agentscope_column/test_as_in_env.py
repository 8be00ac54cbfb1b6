"""The AgentScope column's own tests (``in_env/``: its glue, model adapter and end-to-end variants of committed
scenarios), run by the pytest pinned in its environment: AgentScope is importable only there."""

from __future__ import annotations

import pytest

from tests.in_env import run_column_tests


@pytest.mark.slow
def test_the_columns_in_environment_tests_pass() -> None:
    run_column_tests("agentscope")
