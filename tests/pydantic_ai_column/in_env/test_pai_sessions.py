"""The Pydantic AI column driven through the harness's driver (a worker process per step, real kills, a private
ledger), on scenarios these tests bring, where Pydantic AI's own choices show: ``defaults`` saves the history only when a
run returns, and its retry budget for calls refused before any tool runs is the contract's step bound in ``contract``.
Decisions by call id and the step bound across a resume, as every column has them, are the conformance suite's
(``tests/column_conformance``)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from adapters.pydantic_ai.column import PydanticAIColumn
from harness.column_side.driver import run_scenario
from harness.column_side.scripted_model import summarize_log
from harness.scenarios import Fault, Scenario


def drive(tmp: Path, mode: str, max_steps: int, script: list[Any], driver: list[Any], faults: tuple[Fault, ...] = ()) -> dict[str, Any]:
    """Each step's (status, pending call ids, effects by call id) and the model's calls per turn."""
    scenario = Scenario(
        id="probe", file="probe.json", description="", covers=(), tools=("transfer_funds", "send_email", "get_weather"),
        session_id="sess-probe", user_input="Pay, mail and look.", system_prompt=None, max_steps=max_steps,
        model_script=tuple(script), driver=tuple(driver), faults=faults,
    )
    column = PydanticAIColumn()
    run = run_scenario(scenario, partial(column.perform, mode=mode), tmp / mode)
    assert [s.error for s in run.steps] == [None] * len(run.steps), [s.error for s in run.steps]
    steps = [(s.status, sorted(p["call_id"] for p in s.pending), {c: n["effects"] for c, n in sorted(s.ledger.items())}) for s in run.steps]
    return {"steps": steps, "asked": summarize_log(run.scratch / "model_log.jsonl", len(script))["calls_per_turn"]}


def transfer(cid: str, cents: int) -> dict[str, Any]:
    return {"id": cid, "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": cents}}


def weather(cid: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": cid, "name": "get_weather", "arguments": {"city": "Paris"}}]}


def test_defaults_loses_a_killed_run_and_cannot_resume_it(tmp_path: Path) -> None:
    """Defaults saves the history when a run returns: a kill inside the first run leaves nothing to continue."""
    run = drive(tmp_path, "defaults", 8, [weather("w1"), weather("w2"), {"text": "done"}],
                [{"action": "run", "event_id": "e1"}, {"action": "resume"}], (Fault("model.kill_before_turn", turn=1),))
    assert [s[0] for s in run["steps"]] == ["crashed", "refused"]
    assert run["asked"] == {"0": 1, "1": 1}


def test_contract_answers_every_call_refused_before_a_tool_runs_until_the_step_bound(tmp_path: Path) -> None:
    """Arguments that are not JSON twice, then a tool not offered twice: Pydantic AI's default budget of one retry per
    tool would end the run on the second (``UnexpectedModelBehavior``); the contract answers each with its error and
    goes on to the model's answer."""
    bad = {"tool_calls": [{"id": "b1", "name": "get_weather", "arguments": '{"city":'}]}
    unknown = {"tool_calls": [{"id": "u1", "name": "search_kb", "arguments": {"query": "x"}}]}
    run = drive(tmp_path, "contract", 8, [bad, bad, unknown, unknown, {"text": "done"}], [{"action": "run", "event_id": "e1"}])
    assert run["steps"] == [("completed", [], {})]
    assert run["asked"] == {"0": 1, "1": 1, "2": 1, "3": 1, "4": 1}
