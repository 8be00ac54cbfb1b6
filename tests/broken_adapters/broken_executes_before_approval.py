"""Test-only broken column: the hand-written engine with its high-risk tools declared reversible,
so they run before anyone approves them. The comparator must say ``equal: false``."""

from __future__ import annotations

import dataclasses

from adapters.handwritten.column import HandwrittenColumn
from handwritten.tools import RiskClass
from harness.column_side.fixtures.world import FixtureWorld


class Column(HandwrittenColumn):
    name = "broken_executes_before_approval"

_honest_specs = FixtureWorld.tool_specs


def _loosened_specs(self, names):  # type: ignore[no-untyped-def]
    return [
        dataclasses.replace(s, risk=RiskClass.REVERSIBLE_WRITE) if s.risk is RiskClass.HIGH_RISK else s
        for s in _honest_specs(self, names)
    ]


FixtureWorld.tool_specs = _loosened_specs  # type: ignore[method-assign]
