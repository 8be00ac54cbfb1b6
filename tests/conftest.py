"""Shared test helpers: the repository root and a cache of the hand-written column's scenario runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.handwritten_check import ScenarioCheck, check_scenario
from harness.scenarios import load_expectations, load_scenarios

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def handwritten_checks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ScenarioCheck]:
    """Every committed scenario run once through the hand-written column (real worker processes)."""
    scratch = tmp_path_factory.mktemp("handwritten")
    expectations = load_expectations()
    return {s.id: check_scenario(s, expectations[s.id], scratch / s.id) for s in load_scenarios()}
