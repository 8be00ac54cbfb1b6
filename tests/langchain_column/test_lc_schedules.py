"""``create_agent`` on LangGraph's asynchronous checkpoint write, raced by a kill and forced by schedule
(``adapters/checkpoint_schedule.py``), through the column's ``perform`` on real SqliteSaver files."""

from __future__ import annotations

import json
import subprocess
import textwrap

from harness.columns import ROOT, known_columns
from harness.runner_side.environments import ensure_environment

RUNS = textwrap.dedent(
    """
    import json, sys, tempfile
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from adapters.langchain.column import LangChainColumn
    from harness.column_side.column_main import run_raw
    from harness.scenarios import load_scenarios

    column = LangChainColumn()
    column.prepare("defaults")
    scratch = Path(tempfile.mkdtemp())
    out = {"schedules": {m: {s.id: list(column.schedules(s, m)) for s in load_scenarios() if column.schedules(s, m)} for m in column.modes}}
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
    print(json.dumps(out))
    """
)


def test_each_ordering_of_the_kill_scenarios_resumes_the_way_langgraph_does() -> None:
    env = ensure_environment(known_columns()["langchain"].adapter_dir, log=lambda _: None)
    done = subprocess.run([str(env.python), "-I", "-c", RUNS, str(ROOT)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    runs = json.loads(done.stdout.strip().splitlines()[-1])

    both = ["write_held", "write_landed"]
    # only kills inside the model or a tool race, and only with the default asynchronous durability
    assert runs["schedules"] == {"defaults": {"crash_resume": both, "kill_before_effect": both, "side_effect_before_checkpoint": both}, "contract": {}}

    # crash_resume: killed before model turn 1, after put_note (c1) ran and its result was streamed
    held, landed = runs["crash_resume@write_held"], runs["crash_resume@write_landed"]
    assert held["results_before_resume"] == landed["results_before_resume"] == ["c1"]  # what was streamed is in the trace
    assert (held["statuses"], held["effects"], held["resumed"]) == (["crashed", "completed"], {"c1": 2, "c2": 0}, ["before_execute"])
    assert (landed["statuses"], landed["effects"], landed["resumed"]) == (["crashed", "completed"], {"c1": 1, "c2": 0}, ["model_turn"])

    # the approved transfer killed inside the tool: held loses the approval (HITL asks again), landed runs the tools task again
    for sid, effects_held, effects_landed in (("side_effect_before_checkpoint", 1, 2), ("kill_before_effect", 0, 1)):
        held, landed = runs[f"{sid}@write_held"], runs[f"{sid}@write_landed"]
        assert held["statuses"] == ["awaiting_approval", "crashed", "awaiting_approval", "awaiting_approval"], sid
        assert (held["effects"], held["resumed"], held["unused_turns"]) == ({"c1": effects_held}, ["awaiting_approval"], [1]), sid
        assert landed["statuses"] == ["awaiting_approval", "crashed", "completed", "completed"], sid
        assert (landed["effects"], landed["resumed"], landed["unused_turns"]) == ({"c1": effects_landed}, ["before_execute"], []), sid
