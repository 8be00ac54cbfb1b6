"""From what a column process reports to an observation record, computed in the runner's process.

The column process only reports raw material: its supervisor's step records (statuses
and ledger counts measured after each step), the column's own step facts and the
scripted model's log summary. The observables are computed here, outside the column's
reach, so no column (or a framework patching shared code) can bend the observer.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from harness.records import STATUSES, ScenarioRun, StepFacts, StepRecord
from harness.runner_side.observables import observe
from harness.scenarios import Scenario


def observation(scenario: Scenario, raw: dict[str, Any], measured_exceptions: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The observation record of one scenario: status, observables, steps, trace, model requests, detail.

    A step that ended in an exception the column's ``MAPPING.md`` lists as the framework's own way of
    ending a run is a measured outcome: its run status is ``error``. Any other exception is a failure
    to measure, like an adapter exception, a worker that died unexpectedly or a timeout."""
    steps = [_measured(StepRecord(**s), measured_exceptions) for s in raw["steps"]]
    run = ScenarioRun(scenario, Path("."), steps)
    observables = observe(run, [StepFacts(**f) for f in raw["facts"]], raw["model"])
    errors = [s.error for s in steps if s.error]
    errors += [f"adapter reported a status outside the closed set: {s.status!r}/{s.session_status!r}" for s in steps
               if s.status not in STATUSES or s.session_status not in STATUSES]
    return {
        "status": "error" if errors else "ok",
        "error": errors[0].splitlines()[0] if errors else None,
        "observables": observables,
        "steps": [{"action": s.action, "status": s.status, "refusal": s.refusal, "error": s.error.splitlines()[0] if s.error else None} for s in steps],
        "trace": [{"driver_step": s.index, **e} for s in steps for e in s.trace],
        "model_requests": raw["model"]["requests"],
        "detail": raw["detail"],
    }


def _measured(step: StepRecord, measured_exceptions: frozenset[str]) -> StepRecord:
    if step.raised is None or step.raised not in measured_exceptions:
        return step
    return dataclasses.replace(step, error=None)  # status and session status stay "error": the run failed
