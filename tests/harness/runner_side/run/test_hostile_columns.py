"""Columns that misbehave (test-only hostile subclasses of the engine's column, ``tests/broken_adapters/``) cannot
change another column's evidence, nor erase their own duplicate (issue 33).

Under root (CI) every column process runs under a user of its own: the one that kills a sibling and signals the
runner is refused by the kernel, the one that copies effect rows into a sibling's ledger journal cannot open it, and
the one that erased its own duplicate rows still shows 2 effects. Each hostile column logs what it tried and how it
was refused, so "blocked" is told from "never found". Without root the separation does not apply (docs/columns.md
says what a column could still do then); the ledger's own guarantees are tested in tests/harness/test_ledger.py and,
for the eraser, in tests/harness/runner_side/judge/test_comparator_fails.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from harness.canonical_io import dumps
from harness.columns import ROOT, Column, known_columns
from harness.runner_side.publish.evidence import column_document, handwritten_document
from harness.runner_side.run.runner import ColumnResult, run_column
from harness.scenarios import load_scenarios

BROKEN_DIR = ROOT / "tests" / "broken_adapters"
SCENARIOS = ("duplicate_call_id", "high_risk_approved", "crash_resume")
HONEST = ("handwritten", "local_state_graph")
HOSTILE = ("broken_tampers_with_ledger", "broken_copies_into_sibling", "broken_kills_sibling")

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _root_only() -> None:
    if os.geteuid() != 0:
        why = "the columns' own users need root (CI runs as root)"
        pytest.fail(f"skipped in CI (CI=true): {why}") if os.environ.get("CI") == "true" else pytest.skip(why)


@pytest.fixture(scope="module")
def scenarios_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("scenarios")
    for scenario_id in SCENARIOS:
        shutil.copy(ROOT / "scenarios" / f"{scenario_id}.json", directory / f"{scenario_id}.json")
    return directory


def _run(names: tuple[str, ...], scenarios_dir: Path, root: Path, delay_honest_s: float = 0.0) -> dict[str, ColumnResult]:
    """Every column of ``names`` at once in one scratch root, the honest ones ``delay_honest_s`` after the others."""
    registry = known_columns()
    results: dict[str, ColumnResult] = {}

    def one(name: str) -> None:
        if name in HONEST:
            time.sleep(delay_honest_s)
            column = registry[name]
        else:
            column = Column(name, name, "project", "test-only hostile column")
        results[name] = run_column(column, ["contract"], scenarios_dir, root, scenario_count=len(SCENARIOS), extra_sys_path=[BROKEN_DIR])

    threads = [threading.Thread(target=one, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    return results


def _evidence(results: dict[str, ColumnResult], scenarios_dir: Path) -> dict[str, str]:
    """The honest columns' evidence documents, as the bytes the comparison would write."""
    scenarios = {s.id: s for s in load_scenarios(scenarios_dir)}
    reference = results["handwritten"]
    return {"handwritten": dumps(handwritten_document(reference, {}, {k: s.file for k, s in scenarios.items()})),
            "local_state_graph": dumps(column_document(results["local_state_graph"], reference, scenarios))}


def _log(root: Path, name: str) -> list[dict[str, Any]]:
    path = root / name / "hostile.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def test_hostile_columns_change_no_honest_evidence_and_erase_nothing(scenarios_dir: Path, tmp_path: Path) -> None:
    alone = _run(HONEST, scenarios_dir, tmp_path / "alone")
    beside = _run(HOSTILE + HONEST, scenarios_dir, tmp_path / "beside", delay_honest_s=2.0)
    for name, result in {**alone, **beside}.items():
        assert result.status == "measured", (name, result.reason)
    assert _evidence(beside, scenarios_dir) == _evidence(alone, scenarios_dir)

    # The eraser ran the duplicate again and then erased rows: the runner still counts both effects.
    eraser = beside["broken_tampers_with_ledger"].modes["contract"]["duplicate_call_id"]["observables"]["side_effects"]
    assert eraser["c1"]["effects"] == 2, eraser

    root = tmp_path / "beside"
    erased = _log(root, "broken_tampers_with_ledger")
    journal = [e for e in erased if "ledger journal" in e["tried"]]
    assert journal and all(e["outcome"].startswith("refused: PermissionError") for e in journal), erased
    channel = [e for e in erased if e["tried"].startswith("ask the channel")]
    assert len(channel) >= 3 and all("the ledger offers append, effects_of and counts only" in e["outcome"] for e in channel), channel

    copied = _log(root, "broken_copies_into_sibling")
    assert {e["tried"] for e in copied} == {"copy effect rows into handwritten.ledger.sqlite", "copy effect rows into local_state_graph.ledger.sqlite"}
    assert all(e["outcome"].startswith("refused: PermissionError") for e in copied), copied

    killed = _log(root, "broken_kills_sibling")
    kills = [e for e in killed if e["tried"] == "kill a sibling column's process"]
    assert kills, f"the hostile column never found a sibling to kill: {killed}"
    assert all(e["outcome"] == "refused: PermissionError: [Errno 1] Operation not permitted" for e in killed), killed
    assert [e["tried"] for e in killed].count("signal the runner") == 1


def test_root_and_non_root_runs_give_the_same_evidence(scenarios_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Which protection applied is never in the evidence: the honest columns as column users, then as the runner's own."""
    separated = _run(HONEST, scenarios_dir, tmp_path / "separated")
    monkeypatch.setattr("harness.runner_side.run.runner.separation_applies", lambda: False)
    shared = _run(HONEST, scenarios_dir, tmp_path / "shared")
    assert (tmp_path / "separated" / "handwritten").stat().st_uid != 0 and (tmp_path / "shared" / "handwritten").stat().st_uid == 0
    assert _evidence(separated, scenarios_dir) == _evidence(shared, scenarios_dir)


def test_a_clone_other_users_cannot_reach_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """As root, before any column starts: the pre-flight names the closed directory and what to do."""
    closed = tmp_path / "home" / "me"
    clone = closed / "clone"
    for part in ("harness", "handwritten", "adapters", "scripts", "scenarios"):
        shutil.copytree(ROOT / part, clone / part, ignore=shutil.ignore_patterns("__pycache__", "evidence"))
    for parent in [tmp_path, *tmp_path.parents]:  # pytest's own directories are 0700: only the clone's may be closed here
        os.chmod(parent, parent.stat().st_mode | 0o001)
    os.chmod(closed, 0o700)
    done = subprocess.run([sys.executable, str(clone / "scripts" / "run_framework_comparison.py"), "--framework", "handwritten", "--output",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [f"error: the column user {done.stderr.split()[4]} cannot read {clone / 'harness'}: {closed} is closed to "
                                        f"other users: grant it the traverse bit alone (chmod o+x {closed}), or run as a non-root user"]
    assert not (tmp_path / "out").exists()


def test_a_process_that_leaves_the_columns_group_does_not_outlive_the_run(scenarios_dir: Path, tmp_path: Path) -> None:
    """It would hold the runner on the column's output and meet the next run's column under the same ids."""
    started = time.monotonic()
    result = _run(("broken_leaves_a_process",), scenarios_dir, tmp_path)["broken_leaves_a_process"]
    assert result.status == "measured", result.reason
    assert time.monotonic() - started < 60, "the runner waited for the process that left the group"
    assert _log(tmp_path, "broken_leaves_a_process") == [{"tried": "leave a process behind", "outcome": "done"}]
    pid = int((tmp_path / "broken_leaves_a_process" / "lingering.pid").read_text(encoding="utf-8"))
    assert not Path(f"/proc/{pid}").exists() or Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0] == "Z"
