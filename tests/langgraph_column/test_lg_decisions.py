"""Decisions reach their own calls, in any order, and the contract's step bound holds across a resume: whole
scenarios through the LangGraph column, on the column's own interpreter."""

from __future__ import annotations

import json
import textwrap

import lg_env

python, run_in_column = lg_env.python, lg_env.run_in_column  # the column's interpreter (pytest fixtures)

RUN = textwrap.dedent("""
    import dataclasses, json
    from pathlib import Path
    from adapters.langgraph.column import LangGraphColumn
    from harness.column_side.column_main import run_raw
    from harness.scenarios import load_scenarios

    base = {s.id: s for s in load_scenarios()}["decisions_out_of_order"]
    column = LangGraphColumn()

    def run(mode, **changes):
        scenario = dataclasses.replace(base, **changes)
        record = run_raw(column, scenario, mode, Path(TMP) / f"{mode}-{scenario.id}")
        return {
            "statuses": [s["status"] for s in record["steps"]],
            "pending": [[p["call_id"] for p in s["pending"]] for s in record["steps"]],
            "effects": {c: n["effects"] for c, n in record["steps"][-1]["ledger"].items()},
            "entries": {c: n["tool_entries"] for c, n in record["steps"][-1]["ledger"].items()},
            "turns": record["model"]["calls_per_turn"],
        }
""")


def _run(run_in_column, code: str, tmp: str) -> dict:  # type: ignore[no-untyped-def]
    return json.loads(run_in_column(RUN + textwrap.dedent(code), tmp).strip().splitlines()[-1])


def test_a_turns_calls_decided_one_at_a_time_in_reverse_order_each_reach_their_own_call(run_in_column, tmp_path) -> None:
    out = _run(run_in_column, """
        pay = lambda cid, cents: {"id": cid, "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": cents}}
        email = {"id": "c2", "name": "send_email", "arguments": {"to": "supplier@example.org", "subject": "Receipt", "body": "Paid."}}
        script = ({"tool_calls": [pay("c1", 100), email, pay("c3", 300)]}, {"text": "done"})
        driver = (
            {"action": "run", "event_id": "e1"},
            {"action": "reject", "call_id": "c3", "reason": "no"},
            {"action": "approve", "call_id": "c2"},
            {"action": "reject", "call_id": "c1", "reason": "no"},
        )
        print(json.dumps({mode: run(mode, id="reverse_order", model_script=script, driver=driver) for mode in ("defaults", "contract")}))
    """, str(tmp_path))
    for mode, seen in out.items():
        assert seen["statuses"] == ["awaiting_approval", "awaiting_approval", "awaiting_approval", "completed"], mode
        assert seen["pending"] == [["c1", "c2", "c3"], ["c1", "c2"], ["c1"], []], mode  # the model's order, shrinking
        assert seen["effects"] == {"c2": 1} and seen["entries"] == {"c2": 1}, mode  # only the approved email ran


def test_the_contract_step_bound_holds_across_a_resume(run_in_column, tmp_path) -> None:
    """max_steps=2, both turns taken before the approval: the approval's resume continues the same count, so the
    model gets no third turn (a bound counted per invocation would start again at the resume and grant one)."""
    out = _run(run_in_column, """
        pay = {"id": "c2", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 100}}
        weather = lambda cid: {"id": cid, "name": "get_weather", "arguments": {"city": "Oslo"}}
        script = ({"tool_calls": [weather("c1")]}, {"tool_calls": [pay]}, {"tool_calls": [weather("c3")]}, {"text": "done"})
        driver = ({"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "c2"})
        print(json.dumps(run("contract", id="bound_across_resume", tools=("transfer_funds", "get_weather"), max_steps=2, model_script=script, driver=driver)))
    """, str(tmp_path))
    assert out["statuses"] == ["awaiting_approval", "stopped_max_steps"]
    assert out["turns"] == {"0": 1, "1": 1}  # the two turns before the pause; none after the resume
    assert out["entries"] == {"c1": 1, "c2": 1}  # the approved call ran; c3 was never asked for
