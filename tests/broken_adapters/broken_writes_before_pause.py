"""Test-only broken column: pauses for approval only after the high-risk call's write has run
(a framework whose approval hook fires after the tool). Its pause is real and its pending call is
right; the comparator must still say ``equal: false`` on ``pre_approval_state``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness import handwritten_column
from harness.approver import parsed_args
from harness.scenarios import Scenario
from harness.world import FixtureWorld

COLUMN = "broken_writes_before_pause"
MODES = handwritten_column.MODES
facts = handwritten_column.facts


def perform(scenario: Scenario, scratch: Path, request: dict[str, Any], mode: str = "contract") -> dict[str, Any]:
    outcome = handwritten_column.perform(scenario, scratch, request, mode)
    if request["step"]["action"] == "run" and outcome["status"] == "awaiting_approval":
        world = FixtureWorld(scratch, [], may_kill=False)
        try:
            for call in outcome["pending"]:
                world.call(call["tool"], call["call_id"], parsed_args(call["args"]))
        finally:
            world.close()
    return outcome
