"""``create_agent`` on LangGraph's asynchronous checkpoint write, raced by a kill and forced by schedule
(``adapters/checkpoint_schedule.py``), through the column's ``perform`` on real SqliteSaver files."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.langchain.column import LangChainColumn
from harness.column_side.column_main import run_raw
from harness.scenarios import load_scenarios

BOTH = ["write_held", "write_landed"]
SIBLINGS = ["siblings_first", "kill_first"]


def test_only_kills_inside_the_model_or_a_tool_race_and_only_with_the_default_asynchronous_durability() -> None:
    column = LangChainColumn()
    schedules = {m: {s.id: list(column.schedules(s, m)) for s in load_scenarios() if column.schedules(s, m)} for m in column.modes}
    killed = ("crash_resume", "decision_after_kill", "kill_before_effect", "misused_args_kill_restore", "side_effect_before_checkpoint",
              "snapshot_after_kill_before_first_turn", "snapshot_after_kill_between_turns", "snapshot_of_crashed_run", "wire_faults_around_pause")
    # a kill inside one call of a batch the framework runs in threads races the batch's other calls too, in every mode
    in_batch = ("kill_in_batch_after_approved", "misused_approval_kill_resume", "two_transfers_flaky_note_kill")
    both_races = [f"{w}+{s}" for w in BOTH for s in SIBLINGS]
    expected = dict.fromkeys(killed, BOTH) | dict.fromkeys(in_batch, both_races)
    assert schedules == {"defaults": expected, "wire": expected, "contract": dict.fromkeys(in_batch, SIBLINGS), "mcp": {}}  # mcp: the tools run in the server


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Every scenario with a schedule in defaults, run once per forced ordering: what each run shows, by
    ``<id>@<schedule>``."""
    scratch = tmp_path_factory.mktemp("schedules")
    column = LangChainColumn()
    column.prepare("defaults")
    out = {}
    for scenario in load_scenarios():
        for schedule in column.schedules(scenario, "defaults"):
            record = run_raw(column, scenario, "defaults", scratch / f"{scenario.id}@{schedule}", schedule=schedule)
            out[f"{scenario.id}@{schedule}"] = {
                "statuses": [s["session_status"] for s in record["steps"]],
                "effects": {c: n["effects"] for c, n in record["steps"][-1]["ledger"].items()},
                "resumed": [e["position"] for s in record["steps"] for e in s["trace"] if e["kind"] == "resumed"],
                "results_before_resume": [e["call_id"] for e in record["steps"][0]["trace"] if e["kind"] == "tool_result"],
                "unused_turns": record["model"]["unused_turns"],
            }
    return out


def test_crash_resume_runs_put_note_again_or_continues_at_the_model_turn(runs: dict[str, dict[str, Any]]) -> None:
    """Killed before model turn 1, after put_note (c1) ran and its result was streamed."""
    held, landed = runs["crash_resume@write_held"], runs["crash_resume@write_landed"]
    assert held["results_before_resume"] == landed["results_before_resume"] == ["c1"]  # what was streamed is in the trace
    assert (held["statuses"], held["effects"], held["resumed"]) == (["crashed", "completed"], {"c1": 2, "c2": 0}, ["before_execute"])
    assert (landed["statuses"], landed["effects"], landed["resumed"]) == (["crashed", "completed"], {"c1": 1, "c2": 0}, ["model_turn"])


@pytest.mark.parametrize(("sid", "effects_held", "effects_landed"), [("side_effect_before_checkpoint", 1, 2), ("kill_before_effect", 0, 1)])
def test_a_kill_inside_the_approved_transfer_loses_the_approval_or_runs_the_tools_task_again(
    runs: dict[str, dict[str, Any]], sid: str, effects_held: int, effects_landed: int
) -> None:
    """Held loses the approval (HITL asks again), landed runs the tools task again."""
    held, landed = runs[f"{sid}@write_held"], runs[f"{sid}@write_landed"]
    assert held["statuses"] == ["awaiting_approval", "crashed", "awaiting_approval", "awaiting_approval"]
    assert (held["effects"], held["resumed"], held["unused_turns"]) == ({"c1": effects_held}, ["awaiting_approval"], [1])
    assert landed["statuses"] == ["awaiting_approval", "crashed", "completed", "completed"]
    assert (landed["effects"], landed["resumed"], landed["unused_turns"]) == ({"c1": effects_landed}, ["before_execute"], [])
