"""Real process death at every fault point of the high-risk scenario, for the local_state_graph column.

The claim, as for the reference engine: side effects happen exactly once, or the run
stops in reconcile_required with at most one; never twice; and after an honest
reconciliation the approved transfer has happened exactly once.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from pathlib import Path

import pytest

from adapters.local_state_graph.column import LocalStateGraphColumn
from harness.column_side.driver import run_scenario
from harness.scenarios import FAULT_POINTS, Fault, load_scenarios

pytestmark = pytest.mark.slow  # a real process death per fault point

adapter = LocalStateGraphColumn()

BASE = next(s for s in load_scenarios() if s.id == "high_risk_approved")
CALL = "c1"
DRIVER = (
    {"action": "run", "event_id": "e1"},
    {"action": "resume"},
    {"action": "approve", "call_id": CALL},
    {"action": "resume"},
)
perform = functools.partial(adapter.perform, mode="contract")


def _fault_cases() -> list[Fault]:
    cases = []
    for point, (_, selector) in FAULT_POINTS.items():
        if selector == "turn":
            cases += [Fault(point, turn=t) for t in range(len(BASE.model_script))]
        elif selector == "call_id":
            cases.append(Fault(point, call_id=CALL))
    return cases  # a state save's number: every save of the run, below


@pytest.mark.parametrize("fault", _fault_cases(), ids=lambda f: f"{f.point}:{f.turn if f.call_id is None else f.call_id}")
def test_crash_then_resume_never_doubles_and_never_loses_the_approved_call(fault: Fault, tmp_path: Path) -> None:
    _never_doubles_nor_loses(fault, tmp_path)


def test_a_kill_after_each_checkpoint_put_never_doubles_and_never_loses_the_approved_call(tmp_path: Path) -> None:
    """Every checkpoint the graph puts in the run (one per super-step), one kill after each, until a number past the
    run's last put kills nothing."""
    killed = 0
    for save in itertools.count(1):
        if not _never_doubles_nor_loses(Fault("state.kill_after_save", save=save), tmp_path / str(save), must_kill=False):
            break
        killed += 1
    assert killed >= 8  # accept, model, validate, policy, approval and more super-steps, each a checkpoint


def _never_doubles_nor_loses(fault: Fault, tmp_path: Path, must_kill: bool = True) -> bool:
    """Play the driver with ``fault``, check the claim, and say whether a worker was killed."""
    scenario = dataclasses.replace(BASE, faults=(fault,), driver=DRIVER)
    run = run_scenario(scenario, perform, tmp_path)
    statuses = [s.status for s in run.steps]
    effects = run.steps[-1].ledger.get(CALL, {}).get("effects", 0)

    assert "error" not in statuses, [s.error for s in run.steps]
    if fault.action == "kill" and must_kill:
        assert "crashed" in statuses, statuses
    final = run.steps[-1].session_status
    assert (final, effects) in {("completed", 1), ("reconcile_required", 0), ("reconcile_required", 1)}

    if final == "reconcile_required":
        outcome = "confirmed" if effects == 1 else "not_executed"
        settle = dataclasses.replace(scenario, driver=({"action": "reconcile", "call_id": CALL, "outcome": outcome},))
        settled = run_scenario(settle, perform, tmp_path)
        assert settled.steps[-1].session_status == "completed"
        assert settled.steps[-1].ledger[CALL]["effects"] == 1
    return "crashed" in statuses
