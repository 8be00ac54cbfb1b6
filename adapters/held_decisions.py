"""Decisions the human's side holds for a framework that takes a turn's decisions as one batch.

LangChain's human-in-the-loop middleware and Pydantic AI's ``DeferredToolResults`` take every decision of a
turn at once, while the driver decides one call at a time, in any order, as a person at a review screen
would. The base column keeps each decision here (a file in the scratch directory, so it survives the
worker) until the turn's last call is decided, then hands the whole turn over in the framework's order.

A held call is decided: the step's outcome no longer lists it as pending (the framework still does, but
nobody is waiting on the human for it), so a second decision on it is a decision on a call that is not
pending. A snapshot keeps the held decisions with the framework's state, and a restore brings back the
ones held at the snapshot (none, if none were): a decision given after the snapshot is gone with it.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

from harness.column_side.protocol import Decision, StepOutcome

HELD_FILE = "held_decisions.json"  # the contract glue's ``whole_turn`` holds approvals here too, for the columns that take decisions one by one


class HeldDecisions:
    """The decisions held for the turn whose pending calls are ``turn`` (the framework's, sorted)."""

    def __init__(self, scratch: Path) -> None:
        self.path = scratch / HELD_FILE

    def of_turn(self, pending: list[str]) -> dict[str, Decision]:
        """The decisions held for this turn; a file left from another turn holds nothing for this one."""
        saved = json.loads(self.path.read_text(encoding="utf-8")) if self.path.exists() else {}
        if saved.get("turn") != sorted(pending):
            return {}
        return {call_id: Decision(call_id, **d) for call_id, d in saved["decisions"].items()}

    def hold(self, pending: list[str], decisions: dict[str, Decision]) -> None:
        data = {c: {k: v for k, v in dataclasses.asdict(d).items() if k != "call_id"} for c, d in sorted(decisions.items())}
        self.path.write_text(json.dumps({"turn": sorted(pending), "decisions": data}), encoding="utf-8")

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)

    def visible(self, outcome: StepOutcome) -> StepOutcome:
        """The outcome as the driver sees it: the calls still waiting for a decision."""
        held = self.of_turn([p.call_id for p in outcome.pending])
        if not held:
            return outcome
        return dataclasses.replace(outcome, pending=tuple(p for p in outcome.pending if p.call_id not in held))

    def snapshot(self, snapshot: Path) -> None:
        kept = snapshot.with_suffix(".held.json")
        if self.path.exists():
            shutil.copyfile(self.path, kept)
        else:
            kept.unlink(missing_ok=True)

    def restore(self, snapshot: Path) -> None:
        kept = snapshot.with_suffix(".held.json")
        if kept.exists():
            shutil.copyfile(kept, self.path)
        else:
            self.clear()
