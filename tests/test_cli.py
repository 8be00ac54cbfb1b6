"""The README's comparison command: exit status, evidence bytes, error messages."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "run_framework_comparison.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_two_runs_write_byte_identical_evidence_equal_to_the_committed_file(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    assert _run("--framework", "handwritten", "--output", str(first)).returncode == 0
    assert _run("--framework", "handwritten", "--output", str(second)).returncode == 0
    written = (first / "handwritten.json").read_bytes()
    assert written == (second / "handwritten.json").read_bytes()
    assert written == (ROOT / "evidence" / "handwritten.json").read_bytes(), "committed evidence is stale: rerun the comparison"
    assert str(tmp_path) not in written.decode() and str(ROOT) not in written.decode()


def test_a_differing_expectation_fails_the_run_and_names_the_scenario(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    for name in ("high_risk_approved.json", "basic_react_loop.json"):
        shutil.copy(ROOT / "scenarios" / name, scenarios / name)
    path = scenarios / "high_risk_approved.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["expected"]["side_effects"]["c1"]["effects"] = 2  # a contract the engine must not meet
    path.write_text(json.dumps(data), encoding="utf-8")

    result = _run("--scenarios", str(scenarios), "--output", str(tmp_path / "out"))
    assert result.returncode == 1
    assert "MISMATCH in: high_risk_approved" in result.stderr
    evidence = json.loads((tmp_path / "out" / "handwritten.json").read_text(encoding="utf-8"))
    cells = evidence["modes"]["contract"]["scenarios"]
    assert (cells["high_risk_approved"]["equal"], cells["high_risk_approved"]["mismatches"]) == (False, ["side_effects"])
    assert cells["basic_react_loop"]["equal"] is True


def test_an_unknown_framework_lists_the_known_ones() -> None:
    result = _run("--framework", "crewai")
    assert result.returncode == 2
    assert "unknown framework crewai; known: handwritten" in result.stderr


def test_a_malformed_scenario_directory_names_the_file_and_field(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"id": "bad"}', encoding="utf-8")
    result = _run("--scenarios", str(tmp_path), "--output", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "bad.json: field '(top level)'" in result.stderr
