"""A scripted call's raw arguments text (a string every column parses at run time) nested past the loader's bound is a
bad scenario file: one line naming the file and the field, exit 2 before any column starts; ``"[" * 100000`` is a
short string that Python's JSON parser, and every framework's, would die of recursion on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.columns import ROOT
from harness.errors import ScenarioError
from harness.json_input import MAX_DEPTH, text_nested_too_deeply
from harness.scenarios import load_scenarios

NAME = "malformed_args_not_json"
FIELD = "model_script/0/tool_calls/0/arguments"
TOO_DEEP = {
    "arrays opened 100,000 deep": "[" * 100_000,
    "objects opened 100,000 deep": '{"city":' * 100_000,
    "one level past the bound, closed": "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
}
WITHIN = {
    "not JSON (the committed scenario's)": '{"city": ',
    "at the bound": "[" * MAX_DEPTH + "]" * MAX_DEPTH,
    "brackets inside a string": '{"city": "' + "[" * 1000 + '"}',
    "a lone surrogate escape (the engine answers it)": '{"city": "\\ud800"}',
}


def _scenario_dir(tmp_path: Path, arguments: str) -> Path:
    data = json.loads((ROOT / "scenarios" / f"{NAME}.json").read_text(encoding="utf-8"))
    data["model_script"][0]["tool_calls"][0]["arguments"] = arguments
    directory = tmp_path / "mine"
    directory.mkdir()
    (directory / f"{NAME}.json").write_text(json.dumps(data), encoding="utf-8")
    return directory


@pytest.mark.parametrize("text", list(TOO_DEEP.values()), ids=list(TOO_DEEP))
def test_arguments_text_nested_too_deeply_is_one_line_naming_the_field(tmp_path: Path, text: str) -> None:
    assert text_nested_too_deeply(text)
    with pytest.raises(ScenarioError) as refused:
        load_scenarios(_scenario_dir(tmp_path, text))
    message = str(refused.value)
    assert "\n" not in message and len(message) < 400, message
    assert f"{NAME}.json: field '{FIELD}': " in message and f"at most {MAX_DEPTH} levels" in message, message


@pytest.mark.parametrize("text", list(WITHIN.values()), ids=list(WITHIN))
def test_arguments_text_within_the_bound_loads(tmp_path: Path, text: str) -> None:
    assert not text_nested_too_deeply(text)
    assert load_scenarios(_scenario_dir(tmp_path, text))[0].model_script[0]["tool_calls"][0]["arguments"] == text


@pytest.mark.slow  # the CLIs as subprocesses (each stops before any column starts)
@pytest.mark.parametrize("script", ["run_framework_comparison.py", "validate_scenario.py"])
def test_the_clis_stop_at_load_with_one_line_and_exit_2(tmp_path: Path, script: str) -> None:
    directory = _scenario_dir(tmp_path, "[" * 100_000)
    run = ["--framework", "handwritten", "--scenarios", str(directory), "--output", str(tmp_path / "out")]
    target = run if script.startswith("run_") else [str(directory / f"{NAME}.json")]
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / script), *target], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and f"field '{FIELD}'" in lines[0], done.stderr
    assert not (tmp_path / "out").exists()
