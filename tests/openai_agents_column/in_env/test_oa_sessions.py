"""The OpenAI Agents SDK column driven step by step through the harness's driver (worker processes, a private
ledger), on scenarios these tests bring: a turn's decisions given one at a time in reverse order, the
contract's step bound across a resume, and a turn approved as a whole in contract mode."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest

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


def weather(cid: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": cid, "name": "get_weather", "arguments": {"city": "Paris"}}]}


@pytest.mark.parametrize("mode", ["defaults", "contract"])
def test_a_turns_calls_decided_one_at_a_time_in_reverse_order_each_reach_their_own_call(tmp_path: Path, mode: str) -> None:
    """Three high-risk calls in one turn; the driver approves c3, rejects c2, approves c1, resuming the run after each
    decision. The SDK runs a decided call at once and pauses again on the undecided ones; the contract glue holds c3's
    approval until c1 is decided too (a turn is approved as a whole), the rejection goes in at once."""
    email = {"id": "c2", "name": "send_email", "arguments": {"to": "a@b.c", "subject": "s", "body": "b"}}
    run = drive(tmp_path, mode, 8, [{"tool_calls": [transfer("c1", 100), email, transfer("c3", 300)]}, {"text": "Paid twice, mailed nobody."}],
                [{"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "c3"},
                 {"action": "reject", "call_id": "c2", "reason": "no mail"}, {"action": "approve", "call_id": "c1"}])
    assert [s["error"] for s in run["steps"]] == [None] * 4
    early = {"c3": 1} if mode == "defaults" else {}
    assert [(s["status"], s["pending"], s["effects"]) for s in run["steps"]] == [
        ("awaiting_approval", ["c1", "c2", "c3"], {}),
        ("awaiting_approval", ["c1", "c2"], early),
        ("awaiting_approval", ["c1"], early),
        ("completed", [], {"c1": 1, "c3": 1}),
    ]
    assert run["asked"] == {"0": 1, "1": 1}  # the model saw the turn's three answers at once


def test_the_contract_step_bound_holds_across_a_crash_resume(tmp_path: Path) -> None:
    """max_steps 2; the process dies as the model is asked for turn 1. The resume continues the saved conversation,
    which already holds turn 0: the model gets turn 1 again and never turn 2."""
    run = drive(tmp_path, "contract", 2, [weather("w1"), weather("w2"), weather("w3"), {"text": "done"}],
                [{"action": "run", "event_id": "e1"}, {"action": "resume"}], (Fault("model.kill_before_turn", turn=1),))
    assert [s["status"] for s in run["steps"]] == ["crashed", "stopped_max_steps"]
    assert run["asked"] == {"0": 1, "1": 2}


def test_the_contract_step_bound_holds_across_an_approval(tmp_path: Path) -> None:
    """max_steps 2; turn 0 pauses for approval. After the approval the model gets turn 1 and never turn 2: the
    resumed RunState carries the run's count."""
    run = drive(tmp_path, "contract", 2, [{"tool_calls": [transfer("c1", 100)]}, weather("w1"), weather("w2"), {"text": "done"}],
                [{"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "c1"}])
    assert [s["status"] for s in run["steps"]] == ["awaiting_approval", "stopped_max_steps"]
    assert run["asked"] == {"0": 1, "1": 1}
    assert run["steps"][-1]["effects"] == {"c1": 1, "w1": 0}


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


def test_the_contract_runs_nothing_of_a_turn_before_its_last_high_risk_call_is_decided(tmp_path: Path) -> None:
    """A read, a flaky note and two transfers in one turn. The SDK would run the read and every attempt of the note
    before pausing, and run the first transfer on its own approval; the glue pauses the read and the note with the
    transfers and holds the first approval: the whole turn runs, in the model's order, on the second approval."""
    note = {"id": "n1", "name": "put_note", "arguments": {"key": "k", "text": "t"}}
    run = drive(tmp_path, "contract", 8, [{"tool_calls": [*weather("w1")["tool_calls"], note, transfer("t1", 100), transfer("t2", 200)]}, {"text": "Done."}],
                [{"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "t1"}, {"action": "approve", "call_id": "t2"}],
                (Fault("tool.raise_before_effect", call_id="n1"),), tools=("get_weather", "put_note", "transfer_funds"))
    assert [(s["status"], s["pending"], s["entered"]) for s in run["steps"]] == [
        ("awaiting_approval", ["t1", "t2"], {}),
        ("awaiting_approval", ["t2"], {}),
        ("completed", [], {"n1": 2, "t1": 1, "t2": 1, "w1": 1}),  # the note's failed attempt, then its effect
    ]


def test_the_contract_pays_no_second_transfer_while_the_first_is_uncertain(tmp_path: Path) -> None:
    """Two approved transfers in one turn, the first times out after its effect: the run stops for the reconcile with
    the second not entered; the reconcile confirms the first (not run again) and only then the second runs."""
    run = drive(tmp_path, "contract", 8, [{"tool_calls": [transfer("t1", 100), transfer("t2", 200)]}, {"text": "Done."}],
                [{"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "t1"}, {"action": "approve", "call_id": "t2"},
                 {"action": "reconcile", "call_id": "t1", "outcome": "confirmed"}],
                (Fault("tool.timeout_after_effect", call_id="t1"),), tools=("transfer_funds",))
    assert [(s["status"], s["entered"]) for s in run["steps"]] == [
        ("awaiting_approval", {}), ("awaiting_approval", {}), ("reconcile_required", {"t1": 1}), ("completed", {"t1": 1, "t2": 1}),
    ]


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
