"""Test-only broken column: pauses for approval only after the high-risk call's write has run
(a framework whose approval hook fires after the tool). Its pause is real and its pending call is
right; the comparator must still say ``equal: false`` on ``pre_approval_state``."""

from __future__ import annotations

from pathlib import Path

from adapters.handwritten.column import HandwrittenColumn
from harness.column_side.approver import parsed_args
from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.protocol import StepOutcome, StepRequest
from harness.scenarios import Scenario


class Column(HandwrittenColumn):
    name = "broken_writes_before_pause"

    def perform(self, scenario: Scenario, scratch: Path, request: StepRequest, mode: str = "contract") -> StepOutcome:
        outcome = super().perform(scenario, scratch, request, mode)
        if request.action == "run" and outcome.status == "awaiting_approval":
            world = FixtureWorld(scratch, [], may_kill=False)
            try:
                for call in outcome.pending:
                    world.call(call.tool, call.call_id, parsed_args(call.args))
            finally:
                world.close()
        return outcome
