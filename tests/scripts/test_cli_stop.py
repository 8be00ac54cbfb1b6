"""Ctrl-C or SIGTERM to the comparison CLI: every column process stops, the scratch directory goes, nothing is
written to the evidence directory, one line says so, and the exit status is 128 + the signal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.columns import ROOT
from harness.runner_side.publish.drift import diff_documents

pytestmark = pytest.mark.slow  # real column processes


def _processes_mentioning(text: str) -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            command = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in command:
            found.append(command)
    return found


@pytest.mark.parametrize(("signum", "status", "group"), [(signal.SIGINT, 130, False), (signal.SIGTERM, 143, False), (signal.SIGINT, 130, True)])
def test_a_signal_stops_every_column_and_leaves_nothing(signum: int, status: int, group: bool, tmp_path: Path) -> None:
    """To the CLI's pid, or (as a terminal's Ctrl-C does) to its whole process group."""
    scratch_root, output = tmp_path / "tmp", tmp_path / "out"
    scratch_root.mkdir()
    output.mkdir()
    cli = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "run_framework_comparison.py"), "--framework", "local_state_graph", "--output", str(output)],
        cwd=ROOT, env={**os.environ, "TMPDIR": str(scratch_root)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=group,
    )
    assert cli.stdout is not None
    for line in cli.stdout:  # the first finished scenario: the column processes are running
        if line.startswith("[") and "/" in line.split("]", 1)[1]:
            break
    assert _processes_mentioning(str(scratch_root)), "no column process was running"
    if group:
        os.killpg(cli.pid, signum)
    else:
        cli.send_signal(signum)
    rest, errors = cli.communicate(timeout=60)
    assert cli.returncode == status, (rest, errors)
    assert errors.strip().splitlines() == [
        f"stopped by {signal.Signals(signum).name}: every column process killed, scratch removed, nothing written to {output}"
    ]
    deadline = time.monotonic() + 10
    while _processes_mentioning(str(scratch_root)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_mentioning(str(scratch_root)) == []
    assert list(scratch_root.iterdir()) == []
    assert list(output.iterdir()) == []


def test_own_scenarios_never_write_the_committed_evidence(tmp_path: Path) -> None:
    """--scenarios without --output goes to the git-ignored runs/<name>/; into evidence/ it is refused."""
    scenarios = tmp_path / f"mine-{tmp_path.name}"
    scenarios.mkdir()
    (scenarios / "always_deny.json").write_bytes((ROOT / "scenarios" / "always_deny.json").read_bytes())
    committed = {p.name: p.read_bytes() for p in (ROOT / "evidence").iterdir()}
    run = [sys.executable, str(ROOT / "scripts" / "run_framework_comparison.py"), "--framework", "local_state_graph", "--scenarios", str(scenarios)]
    done = subprocess.run(run, cwd=ROOT, capture_output=True, text=True, timeout=300)
    out = ROOT / "runs" / scenarios.name
    try:
        assert done.returncode == 0, done.stderr
        assert (out / "local_state_graph.json").exists() and f"runs/{scenarios.name}" in done.stdout
        assert {p.name: p.read_bytes() for p in (ROOT / "evidence").iterdir()} == committed
        tracked = subprocess.run(["git", "status", "--porcelain", "--", "runs"], cwd=ROOT, capture_output=True, text=True).stdout
        assert tracked == ""  # git-ignored
    finally:
        import shutil

        shutil.rmtree(out, ignore_errors=True)
    refused = subprocess.run([*run, "--output", str(ROOT / "evidence")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "give your scenarios another --output" in refused.stderr


def test_a_run_of_one_mode_keeps_the_other_mode_of_the_committed_document() -> None:
    from harness.runner_side.publish.evidence import merge_modes

    committed = {"status": "measured", "modes": {"contract": {"summary": {}, "scenarios": {"a": 1}}, "defaults": {"summary": {}, "scenarios": {"a": 2}}}}
    fresh = {"status": "measured", "versions": {"x": "2"}, "modes": {"defaults": {"summary": {}, "scenarios": {"a": 3}}}}
    merged = merge_modes(fresh, committed)
    assert merged["modes"] == {"contract": committed["modes"]["contract"], "defaults": fresh["modes"]["defaults"]} and merged["versions"] == {"x": "2"}
    assert merge_modes(fresh, None) == fresh
    assert merge_modes({"status": "not-measured", "modes": {}}, committed) == {"status": "not-measured", "modes": {}}


def test_a_run_of_one_column_in_one_mode_leaves_the_committed_evidence_as_it_was(tmp_path: Path) -> None:
    committed = tmp_path / "evidence"
    import shutil

    shutil.copytree(ROOT / "evidence", committed)
    before = {p.name: p.read_bytes() for p in committed.iterdir() if p.name != "timings.json"}
    run = [sys.executable, str(ROOT / "scripts" / "run_framework_comparison.py"), "--framework", "langgraph", "--mode", "defaults",
           "--output", str(committed)]
    done = subprocess.run(run, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    after = {p.name: p.read_bytes() for p in committed.iterdir() if p.name != "timings.json"}
    assert after.keys() == before.keys()
    changed = sorted(name for name in before if after[name] != before[name])
    drift = [line for name in changed if name.endswith(".json")
             for line in diff_documents(name, json.loads(before[name]), json.loads(after[name]))]
    assert changed == [], f"changed: {changed}; what drifted:\n" + "\n".join(drift) + f"\nthe run printed:\n{done.stdout[-4000:]}"


def test_the_output_may_not_be_the_scenarios_directory(tmp_path: Path) -> None:
    (tmp_path / "always_deny.json").write_bytes((ROOT / "scenarios" / "always_deny.json").read_bytes())
    run = [sys.executable, str(ROOT / "scripts" / "run_framework_comparison.py"), "--scenarios", str(tmp_path), "--output", str(tmp_path)]
    done = subprocess.run(run, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and f"--output {tmp_path}: must not be the scenarios directory" in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["always_deny.json"]
