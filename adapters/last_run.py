"""How the framework's last run ended, as it returned: the harness's own record around every call into the framework.

A framework's saved state says where a run stopped only as far as the framework saves it, and a session reads
its status from that state. Two endings are lost that way. A run killed between two of the framework's saves
leaves a state that reads as finished (the OpenAI Agents SDK saves a turn's items when the turn ends, so a run
killed before its next model turn ends in a tool output; AgentScope writes nothing until the reply returns).
And a run stopped by the step bound leaves no mark in a state that keeps only the conversation (the OpenAI
Agents SDK's run raises ``MaxTurnsExceeded`` and its session holds the items, nothing else). Both sessions would
then read ``completed`` on the next snapshot, for a run that never completed.

The base column writes ``running`` here before it hands a run to the framework (a delivery, a decision, a resume,
a reconcile) and the session's status when the call returns (a call the framework refuses changes nothing); a kill
leaves ``running``, an exception removes the record. While the record says ``running``, a session that reads as done is ``crashed``, as the engine's is:
nothing has finished the run since. While it says ``stopped_max_steps``, a session that reads ``completed`` is
``stopped_max_steps``. A state that waits on a decision (``awaiting_approval``, ``reconcile_required``) is the
framework's own reading and stays. A snapshot keeps the record with the framework's state; a restore brings back
the snapshot's.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path

from harness.column_side.protocol import StepOutcome
from harness.records import RunStatus

RUNNING = "running"
_READ_AS: dict[str, tuple[RunStatus, tuple[str, ...]]] = {
    RUNNING: ("crashed", ("completed", "stopped_max_steps")),
    "stopped_max_steps": ("stopped_max_steps", ("completed",)),
}
"""The recorded ending -> the session status it means, and the readings of the saved state it corrects."""


class LastRun:
    """The record, in ``scratch``, of how the framework's last run ended."""

    def __init__(self, scratch: Path) -> None:
        self.path = scratch / "last_run"

    def run(self, call: Callable[[], StepOutcome]) -> StepOutcome:
        """One call into the framework: ``running`` until it returns (a kill, ``os._exit``, leaves it so). A call the
        framework refused before it started a run, or one that only read the saved state (``StepOutcome.ran``: a
        decision naming no call the framework waits on), leaves the record as it was: no run ended there."""
        before = self.path.read_text(encoding="utf-8") if self.path.exists() else None
        self.path.write_text(RUNNING, encoding="utf-8")
        try:
            outcome = call()
        except BaseException:
            self.path.unlink(missing_ok=True)
            raise
        ended = before if outcome.status == "refused" or not outcome.ran else outcome.session_status
        if ended is None:
            self.path.unlink()
        else:
            self.path.write_text(ended, encoding="utf-8")
        return outcome

    def seen(self, outcome: StepOutcome) -> StepOutcome:
        """The outcome with the session status the last run's ending means, where the saved state reads otherwise."""
        ended = self.path.read_text(encoding="utf-8") if self.path.exists() else None
        means, corrects = _READ_AS.get(ended or "", (None, ()))
        if means is None or outcome.session_status not in corrects:
            return outcome
        status = means if outcome.status == outcome.session_status else outcome.status
        return dataclasses.replace(outcome, status=status, session_status=means)

    def snapshot(self, snapshot: Path) -> None:
        self._copy(self.path, snapshot.with_suffix(".last_run"))

    def restore(self, snapshot: Path) -> None:
        self._copy(snapshot.with_suffix(".last_run"), self.path)

    @staticmethod
    def _copy(source: Path, target: Path) -> None:
        if source.exists():
            shutil.copyfile(source, target)
        else:
            target.unlink(missing_ok=True)
