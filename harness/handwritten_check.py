"""Run the ``handwritten`` column over scenarios and check it against each scenario's ``expected`` block.

This is the only reader of ``expected``: every other column is compared with the
engine's *measured* observations, never with these expectations.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import handwritten_column
from .driver import run_scenario
from .observables import OBSERVABLES, observe
from .scenarios import Scenario
from .scripted_model import summarize_log

EVIDENCE_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class ScenarioCheck:
    """One scenario's expected and measured observables, and which of them differ."""

    scenario: Scenario
    expected: dict[str, Any]
    actual: dict[str, Any]
    mismatches: tuple[str, ...]
    status: str  # ok | error
    record: dict[str, Any]  # steps, trace and model requests, for the evidence

    @property
    def equal(self) -> bool:
        return not self.mismatches


def check_scenario(scenario: Scenario, expected: dict[str, Any], scratch: Path) -> ScenarioCheck:
    run = run_scenario(scenario, handwritten_column.perform, scratch)
    model = summarize_log(scratch / "model_log.jsonl", len(scenario.model_script))
    actual = observe(run, handwritten_column.facts(run), model)
    mismatches = tuple(k for k in OBSERVABLES if expected[k] != actual[k])
    errors = [s for s in run.steps if s.status == "error"]
    record = {
        "steps": [
            {"action": s.action, "status": s.status, "refusal": s.refusal, "error": (s.error or "").splitlines()[0] if s.error else None}
            for s in run.steps
        ],
        "trace": [{"driver_step": s.index, **e} for s in run.steps for e in s.trace],
        "model_requests": model["requests"],
    }
    return ScenarioCheck(scenario, expected, actual, mismatches, "error" if errors else "ok", record)


def evidence(checks: list[ScenarioCheck]) -> dict[str, Any]:
    """``evidence/handwritten.json``: per scenario expected, actual, equal (and the trace behind them)."""
    scenarios = {
        c.scenario.id: {
            "file": c.scenario.file,
            "status": c.status,
            "equal": c.equal,
            "mismatches": list(c.mismatches),
            "expected": c.expected,
            "actual": c.actual,
            **c.record,
        }
        for c in checks
    }
    return {
        "schema_version": EVIDENCE_SCHEMA_VERSION,
        "framework": "handwritten",
        "status": "measured",
        "modes": {"contract": {"scenarios": scenarios}},
        "summary": {"scenarios": len(checks), "equal": sum(c.equal for c in checks), "errors": sum(c.status == "error" for c in checks)},
    }
