"""The README's comparison command: exit status, evidence bytes, --check, error messages."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.columns import ROOT, known_columns

pytestmark = pytest.mark.slow  # every test runs the comparison CLI in a subprocess

SCRIPT = ROOT / "scripts" / "run_framework_comparison.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


def _scenarios(tmp_path: Path, *names: str) -> Path:
    directory = tmp_path / "scenarios"
    directory.mkdir()
    for name in names:
        shutil.copy(ROOT / "scenarios" / f"{name}.json", directory / f"{name}.json")
    return directory


def test_a_run_writes_evidence_byte_identical_to_the_committed_files_and_views_it_rebuilds_alike(tmp_path: Path) -> None:
    """The committed file was written by another run, at another time: equal bytes are the determinism across runs
    (CI's --check also runs every column twice). The views are rebuilt from the written evidence by --rederive --check,
    later, and must come out byte for byte the same."""
    out = tmp_path / "a"
    assert _run("--framework", "handwritten", "--output", str(out)).returncode == 0
    written = (out / "handwritten.json").read_bytes()
    assert written == (ROOT / "evidence" / "handwritten.json").read_bytes(), "committed evidence is stale: rerun the comparison"
    assert str(tmp_path) not in written.decode() and str(ROOT) not in written.decode()
    for view in ("report.html", "scorecard.svg"):  # the teaching views: no path in them
        text = (out / view).read_text(encoding="utf-8")
        assert str(tmp_path) not in text and str(ROOT) not in text, view
    again = _run("--rederive", "--check", "--output", str(out))
    assert again.returncode == 0 and "no drift" in " ".join(again.stdout.split()), again.stdout + again.stderr  # lines wrap at 100


def test_a_differing_expectation_fails_the_run_and_names_the_scenario(tmp_path: Path) -> None:
    scenarios = _scenarios(tmp_path, "high_risk_approved", "basic_react_loop")
    path = scenarios / "high_risk_approved.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["expected"]["side_effects"]["c1"]["effects"] = 2  # a contract the engine must not meet
    path.write_text(json.dumps(data), encoding="utf-8")

    result = _run("--framework", "handwritten", "--scenarios", str(scenarios), "--output", str(tmp_path / "out"))
    assert result.returncode == 1
    assert "handwritten differs from the expectations of high_risk_approved" in result.stderr
    evidence = json.loads((tmp_path / "out" / "handwritten.json").read_text(encoding="utf-8"))
    records = evidence["modes"]["contract"]["scenarios"]
    assert (records["high_risk_approved"]["equal"], records["high_risk_approved"]["mismatches"]) == (False, ["side_effects"])
    assert records["basic_react_loop"]["equal"] is True


def test_an_unknown_framework_lists_the_known_ones() -> None:
    result = _run("--framework", "crewai")
    assert result.returncode == 2
    assert f"unknown framework crewai; known: {', '.join(known_columns())}" in result.stderr


def test_a_malformed_scenario_directory_names_the_file_and_field(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"id": "bad"}', encoding="utf-8")
    result = _run("--scenarios", str(tmp_path), "--output", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "bad.json: field 'description': required, but missing" in result.stderr


def test_an_empty_scenario_directory_is_refused(tmp_path: Path) -> None:
    result = _run("--scenarios", str(tmp_path), "--output", str(tmp_path / "out"))
    assert (result.returncode, "holds no scenario files" in result.stderr) == (2, True)


def test_check_passes_on_the_evidence_it_wrote_and_names_what_drifted(tmp_path: Path) -> None:
    """On two scenarios: the committed evidence as a whole is --check's own CI step, and the committed bytes of the
    engine's evidence are test_two_runs_write_byte_identical_evidence_equal_to_the_committed_files'."""
    scenarios, committed = _scenarios(tmp_path, "high_risk_approved", "basic_react_loop"), tmp_path / "evidence"
    assert _run("--framework", "handwritten", "--scenarios", str(scenarios), "--output", str(committed)).returncode == 0
    clean = _run("--framework", "handwritten", "--scenarios", str(scenarios), "--check", "--output", str(committed))
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "no drift" in " ".join(clean.stdout.split())  # the printed lines wrap at 100 characters

    path = committed / "handwritten.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["modes"]["contract"]["scenarios"]["high_risk_approved"]["actual"]["side_effects"]["c1"]["effects"] = 2
    path.write_text(json.dumps(data), encoding="utf-8")
    for view in ("report.html", "scorecard.svg"):  # an edit to a teaching view is drift too
        (committed / view).write_text((committed / view).read_text(encoding="utf-8").replace("<", "< ", 1), encoding="utf-8")
    drifted = _run("--framework", "handwritten", "--scenarios", str(scenarios), "--check", "--output", str(committed))
    assert drifted.returncode == 1
    assert "report.html differs from what the evidence generates" in drifted.stdout
    assert "scorecard.svg differs from what the evidence generates" in drifted.stdout
    assert "handwritten.json / contract / high_risk_approved / side_effects:" in drifted.stdout
    assert '"effects": 2' in drifted.stdout and '"effects": 1' in drifted.stdout  # the committed value and the measured one
    assert json.loads(path.read_text(encoding="utf-8")) == data, "--check must not rewrite the committed files"


def test_a_sample_compares_only_its_scenarios_with_the_committed_evidence_and_rewrites_nothing(tmp_path: Path) -> None:
    """``--check --sample``: the committed evidence (a copy here) against a run of one committed scenario; an entry of
    the sample edited is drift, an entry of a scenario outside the sample is not compared."""
    committed = tmp_path / "evidence"
    shutil.copytree(ROOT / "evidence", committed)
    args = ("--framework", "local_state_graph", "--mode", "contract", "--sample", "basic_react_loop", "--check", "--output", str(committed))
    clean = _run(*args)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "no drift" in " ".join(clean.stdout.split())

    path = committed / "local_state_graph.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["modes"]["contract"]["scenarios"]["high_risk_approved"]["status"] = "edited, outside the sample"
    data["modes"]["contract"]["scenarios"]["basic_react_loop"]["steps"] = 99
    path.write_text(json.dumps(data), encoding="utf-8")
    drifted = _run(*args)
    assert drifted.returncode == 1
    assert "local_state_graph.json / contract / basic_react_loop" in drifted.stdout and "high_risk_approved" not in drifted.stdout
    assert json.loads(path.read_text(encoding="utf-8")) == data, "--check must not rewrite the committed files"
    assert _run("--sample", "basic_react_loop").returncode == 2  # a sample is a check: never a partial write of the evidence


NEW_SCENARIO = {
    "id": "refund_email_flow",
    "description": "Written outside the project: look up a balance, email the customer after approval, store a note.",
    "covers": ["high_risk_before_approval", "basic_react"],
    "tools": ["get_balance", "send_email", "put_note"],
    "session_id": "sess-refund",
    "user_input": "Tell the customer on ACC-7 their balance by email and note it.",
    "max_steps": 6,
    "model_script": [
        {"tool_calls": [{"id": "b1", "name": "get_balance", "arguments": {"account": "ACC-7"}}]},
        {"tool_calls": [{"id": "m1", "name": "send_email", "arguments": {"to": "c@example.org", "subject": "Balance", "body": "1000.00"}}]},
        {"tool_calls": [{"id": "n1", "name": "put_note", "arguments": {"key": "acc-7", "text": "emailed balance"}}]},
        {"text": "Done."},
    ],
    "driver": [{"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "m1"}],
    "faults": [],
    "expected": {
        "status": "completed",
        "step_statuses": ["awaiting_approval", "completed"],
        "refusals": [],
        "side_effects": {
            "b1": {"tool_entries": 1, "executor_entries": 1, "effects": 0},
            "m1": {"tool_entries": 1, "executor_entries": 1, "effects": 1},
            "n1": {"tool_entries": 1, "executor_entries": 1, "effects": 1},
        },
        "model": {"calls_per_turn": {"0": 1, "1": 1, "2": 1, "3": 1}, "missing_turns": [], "unused_turns": [], "injected": [], "marker_roles": []},
        "schema_failure_side_effects": "n/a",
        "pre_approval_state": {
            "pauses": [
                {
                    "step": 0,
                    "pending": [{"call_id": "m1", "tool": "send_email", "args": {"to": "c@example.org", "subject": "Balance", "body": "1000.00"}}],
                    "args_validated": True,
                    "non_read_only_effects": {},
                }
            ],
            "decisions": [{"step": 1, "action": "approve", "call_id": "m1", "effects_before": {}}],
            "undecided_at_end": [],
        },
        "idempotent_replay": "n/a",
        "checkpoint_after_interrupt": "n/a",
    },
}


def test_a_new_scenario_file_runs_through_every_column_without_code_changes(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    (scenarios / "refund_email_flow.json").write_text(json.dumps(NEW_SCENARIO), encoding="utf-8")
    result = _run("--scenarios", str(scenarios), "--output", str(tmp_path / "out"))
    assert result.returncode == 0, result.stdout + result.stderr
    for name in known_columns():
        evidence = json.loads((tmp_path / "out" / f"{name}.json").read_text(encoding="utf-8"))
        assert evidence["status"] == "measured"
        assert all("refund_email_flow" in body["scenarios"] for body in evidence["modes"].values()), name
    local = json.loads((tmp_path / "out" / "local_state_graph.json").read_text(encoding="utf-8"))
    assert local["modes"]["contract"]["summary"]["not_equal_cells"] == 0


def test_editing_an_expected_block_changes_no_other_columns_evidence(tmp_path: Path) -> None:
    scenarios = _scenarios(tmp_path, "high_risk_approved", "crash_resume")
    before, after = tmp_path / "before", tmp_path / "after"
    assert _run("--framework", "local_state_graph", "--scenarios", str(scenarios), "--output", str(before)).returncode == 0
    path = scenarios / "crash_resume.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["expected"]["status"] = "stopped_max_steps"
    path.write_text(json.dumps(data), encoding="utf-8")
    edited = _run("--framework", "local_state_graph", "--scenarios", str(scenarios), "--output", str(after))
    assert edited.returncode == 1  # the hand-written check now fails: its expectation is wrong
    assert (before / "local_state_graph.json").read_bytes() == (after / "local_state_graph.json").read_bytes()
    assert (before / "handwritten.json").read_bytes() != (after / "handwritten.json").read_bytes()




def test_a_column_that_cannot_be_measured_fails_the_run_loudly_unless_allowed(tmp_path: Path, monkeypatch, capsys, comparison_cli) -> None:
    import harness.columns as columns

    ghost = columns.Column("ghost", "no_such_adapter_module", "project", "a column whose adapter does not exist")
    declared = columns.known_columns()
    monkeypatch.setattr(columns, "known_columns", lambda: {**declared, "ghost": ghost})
    cli = comparison_cli
    scenarios = _scenarios(tmp_path, "basic_react_loop")

    assert cli.main(["--framework", "ghost", "--scenarios", str(scenarios), "--output", str(tmp_path / "out")]) == 1
    err = " ".join(capsys.readouterr().err.split())  # the closing lines wrap at 100 characters
    assert "!!! ghost was NOT MEASURED: the column process exited with 1" in err and "ghost not measured" in err
    ghost_evidence = json.loads((tmp_path / "out" / "ghost.json").read_text(encoding="utf-8"))
    assert (ghost_evidence["status"], ghost_evidence["modes"]) == ("not-measured", {})
    availability = json.loads((tmp_path / "out" / "availability.json").read_text(encoding="utf-8"))["columns"]
    assert availability["ghost"]["status"] == "not-measured" and "ModuleNotFoundError" in availability["ghost"]["reason"]

    allowed = ["--framework", "ghost", "--allow-not-measured", "--scenarios", str(scenarios), "--output", str(tmp_path / "out2")]
    assert cli.main(allowed) == 0
    assert "!!! ghost was NOT MEASURED" in capsys.readouterr().err


def test_check_names_the_column_and_scenario_whose_behaviour_changed(tmp_path: Path) -> None:
    scenarios, committed = _scenarios(tmp_path, "kill_after_checkpoint", "basic_react_loop"), tmp_path / "evidence"
    assert _run("--framework", "local_state_graph", "--scenarios", str(scenarios), "--output", str(committed)).returncode == 0
    path = committed / "local_state_graph.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    cell = data["modes"]["contract"]["scenarios"]["kill_after_checkpoint"]["columns"]["side_effects"]
    cell["framework"]["c1"]["effects"] = 2  # as if the column had once run the write twice
    path.write_text(json.dumps(data), encoding="utf-8")
    result = _run("--framework", "local_state_graph", "--scenarios", str(scenarios), "--check", "--output", str(committed))
    assert result.returncode == 1
    assert "local_state_graph.json / contract / kill_after_checkpoint / side_effects:\n    framework was" in result.stdout
    assert "evidence drifted" in result.stderr


def test_an_exception_is_a_measured_outcome_only_when_the_columns_mapping_documents_it(tmp_path: Path, monkeypatch, capsys, comparison_cli) -> None:
    import harness.columns as columns

    undocumented = tmp_path / "undocumented"
    documented = tmp_path / "documented"
    for folder in (undocumented, documented):
        folder.mkdir()
    (documented / "MAPPING.md").write_text(
        f"# raises\n\n{columns.MEASURED_EXCEPTIONS_HEADING}\n\n| exception | modes | raised when | documentation |\n|---|---|---|---|\n"
        "| `TimeoutError` | contract | a tool times out | https://docs.python.org/3/library/exceptions.html#TimeoutError |\n",
        encoding="utf-8",
    )
    module = "tests.broken_adapters.raises_timeout:Column"
    bad = columns.Column("raises_undocumented", module, "project", "an exception nobody documented", lock_dir=undocumented)
    ok = columns.Column("raises_documented", module, "project", "an exception its MAPPING.md documents", lock_dir=documented)
    declared = columns.known_columns()
    monkeypatch.setattr(columns, "known_columns", lambda: {**declared, "raises_undocumented": bad, "raises_documented": ok})
    cli = comparison_cli
    scenarios = _scenarios(tmp_path, "basic_react_loop")

    assert cli.main(["--framework", "raises_undocumented", "--mode", "contract", "--scenarios", str(scenarios), "--output", str(tmp_path / "a")]) == 1
    err = " ".join(capsys.readouterr().err.split())  # the closing lines wrap at 100 characters
    assert "!!! raises_undocumented/contract/basic_react_loop could not be measured: TimeoutError: the framework gave up" in err
    assert "1 scenario runs could not be measured" in err

    assert cli.main(["--framework", "raises_documented", "--mode", "contract", "--scenarios", str(scenarios), "--output", str(tmp_path / "b")]) == 0
    record = json.loads((tmp_path / "b" / "raises_documented.json").read_text(encoding="utf-8"))["modes"]["contract"]["scenarios"]["basic_react_loop"]
    assert (record["status"], record["columns"]["status"]["framework"]) == ("ok", "error")
