"""The contract glue's reading of its own idempotency records, driven step by step through the harness's driver
(worker processes, a private ledger), each against what the engine does (docs/contract.md): a call killed inside its
executor leaves the run crashed until a resume finds its record; a restored pause is the session's state again,
its call still kept from running twice; a resume of a finished conversation has nothing to continue."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest

from adapters.openai_agents.column import OpenAIAgentsColumn
from harness.column_side.driver import run_scenario
from harness.column_side.scripted_model import summarize_log
from harness.scenarios import Fault, Scenario

TRANSFER = {"tool_calls": [{"id": "t1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 100}}]}


def drive(tmp: Path, max_steps: int, script: list[Any], driver: list[Any], faults: tuple[Fault, ...] = ()) -> dict[str, Any]:
    """Contract mode: each step's (status, session status, refusal, pending call ids, executor entries of t1), and the
    model's calls per turn."""
    scenario = Scenario(
        id="probe", file="probe.json", description="", covers=(), tools=("transfer_funds",), session_id="sess-probe",
        user_input="Pay.", system_prompt=None, max_steps=max_steps, model_script=tuple(script), driver=tuple(driver), faults=faults,
    )
    column = OpenAIAgentsColumn()
    column.prepare("contract")
    run = run_scenario(scenario, partial(column.perform, mode="contract"), tmp)
    steps = [(s.status, s.session_status, s.refusal, sorted(p["call_id"] for p in s.pending), s.ledger.get("t1", {}).get("executor_entries", 0))
             for s in run.steps]
    return {"steps": steps, "asked": summarize_log(run.scratch / "model_log.jsonl", len(script))["calls_per_turn"]}


def test_a_call_killed_inside_its_executor_is_crashed_until_a_resume_finds_its_record(tmp_path: Path) -> None:
    """The approved transfer's process dies after its effect, before the glue's record completes. Until a resume the run
    is crashed, as the engine's is: a reconcile finds no uncertain call, an approval nothing pending. The resume finds
    the record in progress: the outcome is unknown, and a confirmed reconcile continues without paying again."""
    run = drive(tmp_path, 4, [TRANSFER, {"text": "Paid."}],
                [{"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "t1"},
                 {"action": "reconcile", "call_id": "t1", "outcome": "confirmed"}, {"action": "approve", "call_id": "t1"},
                 {"action": "resume"}, {"action": "reconcile", "call_id": "t1", "outcome": "confirmed"}],
                (Fault("tool.kill_after_effect", call_id="t1"),))
    assert run["steps"] == [
        ("awaiting_approval", "awaiting_approval", None, ["t1"], 0),
        ("crashed", "crashed", None, [], 1),
        ("refused", "crashed", "no uncertain call 't1' to reconcile", [], 1),
        ("refused", "crashed", "not_pending", [], 1),
        ("reconcile_required", "reconcile_required", None, [], 1),
        ("completed", "completed", None, [], 1),
    ]


def test_a_restored_pause_waits_again_and_its_approval_meets_the_uncertain_record(tmp_path: Path) -> None:
    """A snapshot of the pause, the approved transfer killed inside its executor, a resume (reconcile_required), then
    the snapshot restored: the engine's restore puts the pause back, so the session awaits t1's approval again (no
    reconcile is due), and that approval meets the uncertain record: reconcile_required, the executor not entered again."""
    run = drive(tmp_path, 4, [TRANSFER, {"text": "Paid."}],
                [{"action": "run", "event_id": "e1"}, {"action": "snapshot", "name": "p"}, {"action": "approve", "call_id": "t1"},
                 {"action": "resume"}, {"action": "restore", "name": "p"}, {"action": "reconcile", "call_id": "t1", "outcome": "confirmed"},
                 {"action": "approve", "call_id": "t1"}],
                (Fault("tool.kill_before_effect", call_id="t1"),))
    assert run["steps"] == [
        ("awaiting_approval", "awaiting_approval", None, ["t1"], 0),
        ("awaiting_approval", "awaiting_approval", None, ["t1"], 0),
        ("crashed", "crashed", None, [], 1),
        ("reconcile_required", "reconcile_required", None, [], 1),
        ("awaiting_approval", "awaiting_approval", None, ["t1"], 1),
        ("refused", "awaiting_approval", "no uncertain call 't1' to reconcile", ["t1"], 1),
        ("reconcile_required", "reconcile_required", None, [], 1),
    ]


@pytest.mark.parametrize("max_steps", [1, 4])
def test_a_resume_of_a_finished_conversation_starts_no_run(tmp_path: Path, max_steps: int) -> None:
    """The run ended with the model's answer: a resume has nothing to continue, as the engine's resume of a completed
    run. With one model turn allowed the SDK would stop a run started with no turn left (``MaxTurnsExceeded``:
    stopped_max_steps); with more it would ask the model for a turn the conversation does not need."""
    run = drive(tmp_path, max_steps, [{"text": "Nothing to pay."}], [{"action": "run", "event_id": "e1"}, {"action": "resume"}])
    assert run["steps"] == [("completed", "completed", None, [], 0), ("completed", "completed", None, [], 0)]
    assert run["asked"] == {"0": 1}
