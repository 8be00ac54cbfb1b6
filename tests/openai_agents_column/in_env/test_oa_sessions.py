"""The OpenAI Agents SDK column driven step by step through the harness's driver (worker processes, a private
ledger), on scenarios these tests bring, where the SDK's own way with a turn shows: it would start a turn's calls at
once (the contract glue runs them one at a time, so none starts after an uncertain one), and a kill inside a call the
turn held back keeps the turn's approval. Decisions by call id, the step bound and the glue as every column has them
are the conformance suite's (``tests/column_conformance``)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from adapters.openai_agents.column import OpenAIAgentsColumn
from harness.column_side.driver import run_scenario
from harness.column_side.scripted_model import summarize_log
from harness.scenarios import Fault, Scenario


def drive(tmp: Path, mode: str, max_steps: int, script: list[Any], driver: list[Any], faults: tuple[Fault, ...] = (),
          tools: tuple[str, ...] = ("transfer_funds", "send_email", "get_weather")) -> dict[str, Any]:
    """Each step's status, error, pending call ids and effects by call id, and the model's calls per turn."""
    scenario = Scenario(
        id="probe", file="probe.json", description="", covers=(), tools=tools,
        session_id="sess-probe", user_input="Pay, mail and look.", system_prompt=None, max_steps=max_steps,
        model_script=tuple(script), driver=tuple(driver), faults=faults,
    )
    column = OpenAIAgentsColumn()
    column.prepare(mode)
    run = run_scenario(scenario, partial(column.perform, mode=mode), tmp / mode)
    steps = [{"status": s.status, "error": s.error, "pending": sorted(p["call_id"] for p in s.pending),
              "effects": {cid: c["effects"] for cid, c in sorted(s.ledger.items())},
              "entered": {cid: c["executor_entries"] for cid, c in sorted(s.ledger.items())}} for s in run.steps]
    return {"steps": steps, "asked": summarize_log(run.scratch / "model_log.jsonl", len(script))["calls_per_turn"]}


def transfer(cid: str, cents: int) -> dict[str, Any]:
    return {"id": cid, "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": cents}}


def test_the_contract_runs_no_call_after_an_uncertain_one_in_its_turn(tmp_path: Path) -> None:
    """Two notes in one turn, the first times out after its effect. The SDK would start both at once and cancel the
    second wherever it was when the first raised; the glue runs a turn's calls one at a time, so the second never
    starts before the reconcile, and after ``not_executed`` both run (the first again) and the model is asked again."""
    note = [{"id": f"n{i}", "name": "put_note", "arguments": {"key": f"k{i}", "text": "t"}} for i in (1, 2)]
    run = drive(tmp_path, "contract", 6, [{"tool_calls": note}, {"text": "Noted."}],
                [{"action": "run", "event_id": "e1"}, {"action": "reconcile", "call_id": "n1", "outcome": "not_executed"}],
                (Fault("tool.timeout_after_effect", call_id="n1"),), tools=("put_note",))
    assert [(s["status"], s["entered"], s["effects"]) for s in run["steps"]] == [
        ("reconcile_required", {"n1": 1}, {"n1": 1}),
        ("completed", {"n1": 2, "n2": 1}, {"n1": 2, "n2": 1}),  # cumulative: n1 ran again after not_executed
    ]
    assert run["asked"] == {"0": 2, "1": 1}  # the stopped turn saved no output: the resume asks for it again


def test_the_contract_approval_survives_a_kill_in_a_call_the_turn_held(tmp_path: Path) -> None:
    """A transfer and a note in one turn, the note killed before its effect. The note waits for the transfer's
    approval, so the approval is taken (not refused ``not_pending`` by a run that crashed before it) and the transfer
    is paid; the resume finds the note's outcome unknown."""
    note = {"id": "n1", "name": "put_note", "arguments": {"key": "k", "text": "t"}}
    run = drive(tmp_path, "contract", 8, [{"tool_calls": [transfer("t1", 100), note]}, {"text": "Done."}],
                [{"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "t1"}, {"action": "resume"}],
                (Fault("tool.kill_before_effect", call_id="n1"),), tools=("transfer_funds", "put_note"))
    assert [(s["status"], s["pending"], s["effects"]) for s in run["steps"]] == [
        ("awaiting_approval", ["t1"], {}), ("crashed", [], {"n1": 0, "t1": 1}), ("reconcile_required", [], {"n1": 0, "t1": 1}),
    ]
