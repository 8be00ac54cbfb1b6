"""scripts/sweep.py as a user runs it, on the reference columns: every kill point of two scenarios swept whole and in
three shards gives the same bytes; the engine and the local state graph take every effect once at every kill point, each
state save of theirs included; a
job's scenario file, played by the comparison with --scenarios, gives the run its row counted; bad usage is one line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.columns import ROOT
from harness.runner_side.explore.crash_sweep import JOBS, PLAN, SCENARIOS, judge, summary

SCRIPT = ROOT / "scripts" / "sweep.py"
REFERENCES = ("--framework", "handwritten", "--framework", "local_state_graph")
SAMPLE = ("--sample", "kill_in_batch_after_approved", "--sample", "uncertain_then_second_transfer")


def _sweep(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


@pytest.mark.slow
def test_sharded_or_whole_the_same_bytes_and_every_effect_once_in_the_reference_columns(tmp_path: Path) -> None:
    whole = _sweep(*REFERENCES, *SAMPLE, "--out", str(tmp_path / "whole"))
    assert whole.returncode == 0, whole.stdout + whole.stderr
    planned = _sweep(*REFERENCES, *SAMPLE, "--plan", "--out", str(tmp_path / "shards"))
    assert planned.returncode == 0, planned.stdout + planned.stderr
    for shard in ("1/3", "2/3", "3/3"):
        done = _sweep(*REFERENCES, *SAMPLE, "--shard", shard, "--out", str(tmp_path / "shards"))
        assert done.returncode == 0, done.stdout + done.stderr
    merged = _sweep("--merge", str(tmp_path / "shards"), "--output", str(tmp_path / "merged.json"))
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert (tmp_path / "merged.json").read_bytes() == (tmp_path / "whole" / "sweep.json").read_bytes()
    rows = json.loads((tmp_path / "merged.json").read_text())["columns"]
    assert sorted(rows) == ["handwritten", "local_state_graph"] and all(sorted(m) == ["contract"] for m in rows.values())
    for column, modes in rows.items():
        for sid, row in modes["contract"].items():
            assert row["runs"] == row["exactly_once"] == len(row["kill_points"]) >= 2, (column, sid, row)
            assert any(k.startswith("state.kill_after_save ") for k in row["kill_points"]), (column, sid, row)  # its own state saves
            assert all(row[k] == [] for k in ("duplicates", "approvals_lost", "stuck", "not_reached", "errors")), (column, sid, row)
    again = _sweep(*REFERENCES, *SAMPLE, "--out", str(tmp_path / "whole"))  # every job finished: nothing runs again
    assert again.returncode == 0 and "0 of " in again.stdout


@pytest.mark.slow
def test_a_jobs_scenario_file_played_by_the_comparison_gives_its_run(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    done = _sweep("--framework", "handwritten", "--sample", "uncertain_then_second_transfer", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    plan = json.loads((out / PLAN).read_text())
    job = next(j for j in plan["jobs"] if j["kill"]["point"] == "tool.kill_after_effect")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copyfile(out / SCENARIOS / "handwritten" / "contract" / f"{job['name']}.json", corpus / f"{job['name']}.json")
    played = subprocess.run([sys.executable, str(ROOT / "scripts" / "run_framework_comparison.py"), "--framework", "handwritten",
                             "--scenarios", str(corpus), "--output", str(tmp_path / "evidence")], capture_output=True, text=True, cwd=ROOT, timeout=600)  # fmt: skip
    assert played.returncode == 0, played.stdout + played.stderr
    record = json.loads((tmp_path / "evidence" / "handwritten.json").read_text())["modes"]["contract"]["scenarios"][job["name"]]
    run = summary({**record, "observables": record["actual"]})  # the engine's evidence keeps its observables as ``actual``
    assert job["kill"]["step"] in run["killed"]  # the kill fired where the plan put it (the evidence keeps no fault indexes)
    uninterrupted = plan["columns"]["handwritten"]["modes"]["contract"][job["scenario"]]["uninterrupted"]
    swept = json.loads((out / JOBS / f"{job['id']}.json").read_text())["runs"][""]
    assert {**run, "fired": [[job["kill"]["step"], job["fault"]]]} == swept  # what the sweep recorded of the run, but the fault's index
    verdict = judge(job, swept, uninterrupted)
    assert verdict["reached"] and verdict["effects"] == {"t1": 1, "t2": 1} and verdict["status"] == "completed" and not verdict["duplicates"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--shard", "4/3"], "--shard 4/3: give I/N with 1 <= I <= N"),
        (["--framework", "nope"], "unknown framework nope"),
        (["--sample", "nope"], "--sample: no committed scenario nope"),
        (["--merge", "x", "--plan"], "--merge goes alone"),
        (["--merge", "nowhere"], "--merge nowhere: holds no plan.json"),
        (["--shard", "1/2", "--out", "nowhere"], "--shard: nowhere holds no plan.json"),
        (["--ray", "nope"], "--ray nope: give the head's HOST:PORT"),
        (["--ray", "127.0.0.1:99999"], "--ray 127.0.0.1:99999: give the head's HOST:PORT"),
        (["--ray", "ray://head:10001"], "--ray ray://head:10001: give the head's HOST:PORT"),
        (["--ray", "127.0.0.1:6379", "--plan"], "--ray runs jobs: not with --plan or --merge"),
    ],
)
def test_usage_errors_are_one_line(args: list[str], says: str) -> None:
    done = _sweep(*args)
    assert done.returncode == 2 and says in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_directory_a_sweep_did_not_write_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    done = _sweep("--out", str(tmp_path))
    assert done.returncode == 2 and "not a sweep's directory" in done.stderr
    assert (tmp_path / "mine.txt").read_text() == "keep me"
