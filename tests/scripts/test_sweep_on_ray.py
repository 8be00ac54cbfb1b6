"""scripts/sweep.py --ray as a user runs it, against a Ray head started here on 127.0.0.1 alone (harness.runner_side.
explore.on_ray.loopback_cluster): the merged rows of one plan run on Ray are the bytes a local run of it gives; a task
whose worker is killed is reported and never played again, and a run again plays only its jobs; a node running other
code, or a column whose lock moved since the plan, plays nothing; an address where nothing answers is one line, before
any plan. Without the ray extra these tests skip, except in CI (``CI=true``), where they fail."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.columns import ROOT
from harness.runner_side.explore import on_ray
from harness.runner_side.explore.crash_sweep import JOBS, PLAN
from harness.runner_side.explore.on_ray import play_on_node, session, source_digest
from harness.runner_side.run.runner import PACKAGES

SCRIPT = ROOT / "scripts" / "sweep.py"
SAMPLE = ("--framework", "handwritten", "--framework", "langgraph", "--sample", "decision_after_kill")  # both modes, a framework's environment


def _need_ray() -> None:
    if importlib.util.find_spec("ray") is None:
        why = "the ray extra is not installed (pip install -e '.[ray]')"
        pytest.fail(f"skipped in CI (CI=true): {why}") if os.environ.get("CI") == "true" else pytest.skip(why)


def _sweep(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)


LOOPBACK = {"0100007F", "0000000000000000FFFF00000100007F", "00000000000000000000000001000000"}  # 127.0.0.1, as IPv6, ::1 (/proc/net/tcp*)


def _listening(pids: list[int]) -> list[str]:
    """The local addresses (as /proc/net/tcp* spells them) of every TCP socket that one of ``pids`` listens on."""
    inodes = set()
    for proc in (Path("/proc") / str(pid) for pid in pids):
        try:
            inodes |= {os.readlink(fd)[8:-1] for fd in (proc / "fd").iterdir() if os.readlink(fd).startswith("socket:[")}
        except OSError:
            continue
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # LISTEN
                found.append(fields[1].split(":")[0])
    return found


def _column_processes(directory: Path) -> list[int]:
    """Column processes whose scratch directory is inside ``directory`` (a loopback head's: its tasks' TMPDIR)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            line = (proc / "cmdline").read_bytes() if proc.name.isdigit() else b""
        except OSError:
            continue
        if b"column_main" in line and str(directory).encode() in line:
            found.append(int(proc.name))
    return found


def _job_files(sweep: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((sweep / JOBS).glob("*.json"))}


def _task_pids(sid: int) -> list[int]:
    """The workers of the head's session running a job chunk now (Ray titles a worker after the task it runs)."""
    found = []
    for proc in (Path("/proc") / str(pid) for pid in session(sid)):
        try:
            if (proc / "cmdline").read_bytes().startswith(b"ray::play_on_node"):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.mark.slow
def test_a_plan_run_on_ray_merges_to_the_local_bytes_and_a_dead_task_is_reported_not_retried(tmp_path: Path) -> None:
    _need_ray()
    from harness.runner_side.explore.on_ray import loopback_cluster

    planned = _sweep(*SAMPLE, "--plan", "--out", str(tmp_path / "local"))
    assert planned.returncode == 0, planned.stdout + planned.stderr
    for name in ("ray", "killed"):
        shutil.copytree(tmp_path / "local", tmp_path / name)
    jobs = len(json.loads((tmp_path / "local" / PLAN).read_text())["jobs"])
    local = _sweep(*SAMPLE, "--out", str(tmp_path / "local"))
    assert local.returncode == 0, local.stdout + local.stderr
    with loopback_cluster(num_cpus=2) as head:
        address, env = head.address, {**os.environ, **head.env}
        on_ray = _sweep(*SAMPLE, "--out", str(tmp_path / "ray"), "--ray", address, env=env)
        assert on_ray.returncode == 0, on_ray.stdout + on_ray.stderr
        assert f"{jobs} of {jobs} jobs to run (3 column processes, on the Ray cluster at {address})" in on_ray.stdout
        assert (tmp_path / "ray" / "sweep.json").read_bytes() == (tmp_path / "local" / "sweep.json").read_bytes()
        assert _job_files(tmp_path / "ray") == _job_files(tmp_path / "local")  # what each run did, not only its verdicts
        listening = _listening(session(head.session))  # the head's servers and its workers, still up after the sweep
        assert len(listening) >= 4 and all(a in LOOPBACK for a in listening), listening

        # A worker killed while it plays a chunk: its jobs are reported, not retried (max_retries=0), the others kept.
        running = subprocess.Popen([sys.executable, str(SCRIPT), *SAMPLE, "--out", str(tmp_path / "killed"), "--ray", address],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)  # fmt: skip
        deadline = time.monotonic() + 120
        while not (pids := _task_pids(head.session)) and running.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert pids, "no Ray task ran a chunk"
        driver = _listening([running.pid])  # the driver's own core worker listens too
        os.kill(pids[0], signal.SIGKILL)
        out, err = running.communicate(timeout=600)
        assert running.returncode == 1, out + err
        assert driver and all(a in LOOPBACK for a in driver), driver
        deadline = time.monotonic() + 30  # its output pipe broke with its worker: it ends at its next line
        while (orphans := _column_processes(head.directory)) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not orphans, "the killed task's column process outlived it"
        assert "was NOT MEASURED: its Ray task of" in err and "failed and was not retried" in err, err
        left = jobs - len(list((tmp_path / "killed" / JOBS).glob("*.json")))
        assert 0 < left < jobs, out + err
        again = _sweep(*SAMPLE, "--out", str(tmp_path / "killed"), "--ray", address, env=env)
        assert again.returncode == 0 and f"{left} of {jobs} jobs to run" in again.stdout, again.stdout + again.stderr
    assert (tmp_path / "killed" / "sweep.json").read_bytes() == (tmp_path / "local" / "sweep.json").read_bytes()
    assert _job_files(tmp_path / "killed") == _job_files(tmp_path / "local")


def test_an_address_where_nothing_answers_is_one_line_before_any_plan(tmp_path: Path) -> None:
    _need_ray()
    done = _sweep("--framework", "handwritten", "--ray", "127.0.0.1:1", "--out", str(tmp_path / "sweep"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "nothing answers at 127.0.0.1:1, where the Ray head should be" in done.stderr and not (tmp_path / "sweep").exists()


def test_a_node_with_other_code_or_a_column_whose_lock_moved_plays_nothing() -> None:
    refused = play_on_node("0" * 64, "handwritten", "contract", "any", {"never": "{}"}, False)
    assert refused["runs"] == {} and "runs other code than the driver" in refused["failed"]["handwritten"]
    moved = play_on_node(source_digest(), "handwritten", "contract", "0" * 64, {"never": "{}"}, False)  # past the code check
    assert moved["runs"] == {} and "its lock differs from the plan's" in moved["failed"]["handwritten"]


def test_the_source_digest_changes_with_any_file_of_a_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for package in PACKAGES:
        (tmp_path / package / "sub").mkdir(parents=True)
    for name, text in (("pyproject.toml", "[project]"), ("adapters/sub/requirements.lock", "a==1"), ("notes.txt", "x")):
        (tmp_path / name).write_text(text)
    monkeypatch.setattr(on_ray, "ROOT", tmp_path)

    def digest() -> str:
        on_ray.source_digest.cache_clear()
        return on_ray.source_digest()

    try:
        first = digest()
        (tmp_path / "notes.txt").write_text("y")  # outside the packages
        assert digest() == first
        (tmp_path / "adapters" / "sub" / "requirements.lock").write_text("a==2")
        assert digest() != first
    finally:
        on_ray.source_digest.cache_clear()  # the repository's again for the other tests
