"""The crash sweep's jobs and judge on hand-made runs: kill points from a run's passes, a job as a scenario the loader
accepts, and each verdict (duplicate, approval lost, stuck, not reached) from the facts that imply it, and only those."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.canonical_io import write_json
from harness.runner_side.explore.crash_sweep import JOBS, PLAN, judge, merge, row
from harness.runner_side.explore.jobs import KillPoint, job_name, job_scenario, kill_points, swept
from harness.scenarios import SCENARIO_DIR, load_scenario

APPROVED = SCENARIO_DIR / "high_risk_approved.json"


def _run(**changes: Any) -> dict[str, Any]:
    base = {"status": "completed", "error": None, "effects": {"c1": 1}, "pauses": [[0, ["c1"]]], "approved": [[1, "c1"]], "killed": [], "fired": [], "steps": 2}
    return base | changes


def test_kill_points_are_first_passes_without_the_scenarios_own_kills_or_boundary_calls() -> None:
    scenario = load_scenario(SCENARIO_DIR / "crash_resume.json")  # schedules model.kill_before_turn turn 1 itself
    passes = [[0, "model.kill_before_turn", None, 0, None], [0, "tool.kill_before_effect", "c1", None, None], [0, "tool.kill_after_effect", "c1", None, None],
              [0, "model.kill_before_turn", None, 1, None], [1, "model.kill_before_turn", None, 1, None], [1, "tool.kill_before_effect", "raw-1", None, None],
              [1, "tool.raise_before_effect", "c1", None, None], [1, "state.kill_after_save", None, None, 1]]  # fmt: skip
    assert [k.label for k in kill_points(scenario, passes)] == ["model.kill_before_turn turn 0", "tool.kill_after_effect c1", "tool.kill_before_effect c1",
                                                                "state.kill_after_save save 1"]  # fmt: skip
    batch = load_scenario(SCENARIO_DIR / "two_transfers_flaky_note_kill.json")  # kills t2 in the turn of b1, n1, t1 itself
    passes = [[0, "tool.kill_before_effect", "n1", None, None], [3, "tool.kill_before_effect", "t2", None, None], [3, "model.kill_before_turn", None, 1, None]]
    assert [k.label for k in kill_points(batch, passes)] == ["model.kill_before_turn turn 1", "tool.kill_before_effect t2"]  # not inside n1


def test_a_save_kill_point_is_a_fault_the_format_spells_and_its_own_loader_reads(tmp_path: Path) -> None:
    document = json.loads(APPROVED.read_text())
    kill = KillPoint(0, "state.kill_after_save", save=3)
    job = job_scenario(document, kill)
    assert job["id"] == "high_risk_approved__save_3" and job["faults"] == [{"point": "state.kill_after_save", "save": 3}]
    write_json(tmp_path / f"{job['id']}.json", job)
    fault = load_scenario(tmp_path / f"{job['id']}.json").faults[-1]
    assert (fault.point, fault.save, fault.call_id, fault.turn) == ("state.kill_after_save", 3, None, None)


def test_a_job_is_its_scenario_with_one_kill_and_a_resume_after_the_step_it_falls_in(tmp_path: Path) -> None:
    document = json.loads(APPROVED.read_text())
    job = job_scenario(document, KillPoint(1, "tool.kill_after_effect", "c1"))
    assert job["driver"] == [*document["driver"], {"action": "resume"}]
    assert job["faults"] == [{"point": "tool.kill_after_effect", "call_id": "c1"}] and "expected" not in job
    write_json(tmp_path / f"{job['id']}.json", job)
    assert load_scenario(tmp_path / f"{job['id']}.json").faults[-1].call_id == "c1"  # the format's own loader plays it
    early = job_scenario(document, KillPoint(0, "model.kill_before_turn", turn=0))
    assert [s["action"] for s in early["driver"]] == ["run", "resume", "approve"]


def test_a_long_name_is_cut_to_the_formats_limit_with_a_hash() -> None:
    name = job_name("x" * 60, KillPoint(0, "tool.kill_after_effect", "c1"))
    assert len(name) == 64 and name != job_name("x" * 61, KillPoint(0, "tool.kill_after_effect", "c1"))


def test_swept_scenarios_have_a_write_or_a_decision() -> None:
    assert swept(load_scenario(APPROVED)) and swept(load_scenario(SCENARIO_DIR / "always_deny.json"))
    assert not swept(load_scenario(SCENARIO_DIR / "basic_react_loop.json"))  # reads only, no decision


def test_each_verdict_comes_from_the_facts_that_imply_it() -> None:
    job = {"kill": {"step": 1}, "fault": 0}
    plain = {"": _run()}
    clean = judge(job, _run(killed=[1], fired=[[1, 0]], steps=3), plain)
    assert clean == {"status": "completed", "error": None, "effects": {"c1": 1}, "reached": True, "duplicates": {}, "approvals_lost": [], "stuck": False}
    assert judge(job, _run(killed=[1], steps=3, effects={"c1": 2}), plain)["duplicates"] == {"c1": 1}
    lost = judge(job, _run(killed=[1], steps=3, status="awaiting_approval", pauses=[[0, ["c1"]], [2, ["c1"]]]), plain)
    assert lost["approvals_lost"] == ["c1"] and not lost["stuck"]
    asked_before_it = judge(job, _run(killed=[1], steps=3, pauses=[[0, ["c1"]], [2, ["c1"]]], approved=[[2, "c1"]]), plain)
    assert asked_before_it["approvals_lost"] == []  # approved only after the kill: nothing was lost
    assert judge(job, _run(status="error", killed=[1], steps=3), plain)["stuck"]
    assert not judge(job, _run(status="crashed", killed=[1, 2], steps=3), plain)["stuck"]  # its last step was a kill: one resume short
    assert not judge(job, _run(status="error", killed=[1], steps=3), {"": _run(status="error")})["stuck"]  # ended so uninterrupted too
    assert not judge(job, _run(killed=[1], fired=[[1, 1]], steps=3), plain)["reached"]  # a kill fired, not the job's
    assert judge(job, _run(error="KeyError: x\ntrace"), plain)["error"] == "KeyError: x"
    # the kill fired two steps later than planned (another ordering): the windows move with it, the resume's shift kept
    late = _run(killed=[3], fired=[[3, 0]], steps=5, pauses=[[0, ["c1"]], [4, ["c1"]]], approved=[[1, "c1"]])
    assert judge(job, late, {"": _run(pauses=[[0, ["c1"]], [3, ["c1"]]])})["approvals_lost"] == []  # asked there uninterrupted too
    assert judge(job, late, plain)["approvals_lost"] == ["c1"]
    # the killed step would have reported the pause itself (a restore of a paused state): the resume after it reports it
    restored = {"": _run(pauses=[[0, ["c1"]], [1, ["c1"]]], approved=[[0, "c1"]])}
    assert judge(job, _run(killed=[1], fired=[[1, 0]], steps=3, pauses=[[0, ["c1"]], [2, ["c1"]]], approved=[[0, "c1"]]), restored)["approvals_lost"] == []


def test_a_run_whose_kill_never_fired_counts_only_as_not_reached() -> None:
    job = {"name": "s__k", "kill": {"step": 1, "label": "k"}, "fault": 0}
    planned = {"uninterrupted": {"": _run()}, "kill_points": [{"label": "k", "step": 1}]}
    unreached = judge(job, _run(steps=3, effects={"c1": 2}, pauses=[[0, ["c1"]], [2, ["c1"]]]), planned["uninterrupted"])
    counted = row(planned, [(job, {"": unreached})])
    assert counted["not_reached"] == [{"job": "s__k", "kill_point": "k", "status": "completed"}]
    assert counted["duplicates"] == counted["approvals_lost"] == counted["stuck"] == [] and counted["exactly_once"] == 0


def _sweep_dir(path: Path, ids: list[str]) -> Path:
    plan = {"modes": ["contract"], "not_measured": {}, "columns": {"c": {"lock": "l", "modes": {"contract": {"s": {
        "uninterrupted": {"": _run()}, "kill_points": [{"label": f"k{i}", "step": 0} for i in range(3)]}}}}},
        "jobs": [{"id": f"j{i}", "column": "c", "mode": "contract", "scenario": "s", "name": f"s__{i}", "kill": {"label": f"k{i}", "step": 0}, "fault": 0}
                 for i in range(3)]}  # fmt: skip
    write_json(path / PLAN, plan)
    for i in ids:
        write_json(path / JOBS / f"{i}.json", {"id": i, "runs": {"": _run(killed=[0], fired=[[0, 0]], steps=3)}})
    return path


def test_merge_wants_every_planned_job_exactly_once_and_is_the_same_however_sharded(tmp_path: Path) -> None:
    whole = merge([_sweep_dir(tmp_path / "a", ["j0", "j1", "j2"])])
    assert merge([_sweep_dir(tmp_path / "b", ["j0"]), _sweep_dir(tmp_path / "c", ["j1", "j2"])]) == whole
    assert whole["columns"]["c"]["contract"]["s"]["exactly_once"] == 3
    for dirs, says in (([_sweep_dir(tmp_path / "d", ["j0", "j1"])], "1 jobs missing"),
                       ([_sweep_dir(tmp_path / "e", ["j0", "j1", "j2"]), _sweep_dir(tmp_path / "f", ["j2"])], "present more than once")):  # fmt: skip
        with pytest.raises(ValueError, match=says):
            merge(dirs)
    foreign = _sweep_dir(tmp_path / "g", ["j0", "j1", "j2", "j9"])
    with pytest.raises(ValueError, match="not in the plan"):
        merge([foreign])
