"""Shared test helpers: every committed scenario run once through the hand-written column."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from adapters.handwritten.column import HandwrittenColumn
from harness.column_main import run_raw
from harness.observation import observation
from harness.scenarios import load_scenarios


@dataclass(frozen=True)
class HandwrittenRun:
    """One scenario's observation record from the hand-written column; ``actual`` are its observables."""

    record: dict[str, Any]

    @property
    def actual(self) -> dict[str, Any]:
        return self.record["observables"]

    @property
    def status(self) -> str:
        return self.record["status"]


@pytest.fixture(scope="session")
def handwritten_checks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, HandwrittenRun]:
    """Every committed scenario run once through the hand-written column (real worker processes)."""
    scratch = tmp_path_factory.mktemp("handwritten")
    return {s.id: HandwrittenRun(observation(s, run_raw(HandwrittenColumn(), s, "contract", scratch / s.id))) for s in load_scenarios()}
