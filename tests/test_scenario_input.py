"""Every bad scenario file is one line naming the file (by a path relative to where the user stands)
and the field, and the comparison CLI exits 2 on it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ScenarioError
from harness.scenarios import SCENARIO_DIR, load_scenario, load_scenarios, scenario_files

ROOT = Path(__file__).resolve().parent.parent
CLI = ROOT / "scripts" / "run_framework_comparison.py"
NAME = "high_risk_approved"
BASE: dict[str, Any] = json.loads((SCENARIO_DIR / f"{NAME}.json").read_text(encoding="utf-8"))


def _copy() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(BASE))
    return data


def _mine(tmp_path: Path, content: bytes, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory ``mine/`` under the working directory with one scenario file; returns its relative path."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / f"{NAME}.json").write_bytes(content)
    return Path("mine") / f"{NAME}.json"


def _error(path: Path) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenarios(path.parent)
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message
    assert message.startswith(f"mine/{NAME}.json: "), message
    return message


LATIN1 = json.dumps(BASE, ensure_ascii=False, indent=2).replace('"user_input": "', '"user_input": "café ', 1).encode("latin-1")

CASES: list[tuple[str, bytes, str]] = [
    ("not UTF-8 in a value", LATIN1, "field 'user_input': not UTF-8 text (byte 0xe9 at line "),
    ("not UTF-8 outside JSON", b"\xff\xfe{}", "not UTF-8 text (byte 0xff at line 1 column 1)"),
    ("not JSON", b'{"id": ', "not valid JSON at line 1 column 8"),
    ("empty file", b"", "not valid JSON at line 1 column 1"),
    ("top-level array", json.dumps([BASE, BASE]).encode(), "field '(top level)': must be an object (one scenario per file), not an array"),
    ("top-level string", b'"scenario"', "field '(top level)': must be an object (one scenario per file), not a string"),
    ("wrong-typed block", json.dumps(_copy() | {"driver": {"steps": BASE["driver"]}}).encode(), "field 'driver': must be an array, not an object"),
    ("wrong type deep", json.dumps(_copy() | {"model_script": [{"tool_calls": [{"id": 5, "name": "x", "arguments": {}}]}]}).encode(),
     "field 'model_script/0/tool_calls/0/id': must be a string, not an integer"),
    ("wrong type in expected", json.dumps(_copy() | {"expected": BASE["expected"] | {"refusals": "none"}}).encode(),
     "field 'expected/refusals': must be an array, not a string"),
    ("unknown field", json.dumps(_copy() | {"steps": 3}).encode(), "field 'steps': unknown field (known here: id, "),
    ("missing field", json.dumps({k: v for k, v in BASE.items() if k != "session_id"}).encode(), "field 'session_id': required, but missing"),
    ("field required by the action", json.dumps(_copy() | {"driver": [BASE["driver"][0], {"action": "snapshot"}]}).encode(),
     """field 'driver/1/name': required, but missing (for action "snapshot")"""),
    ("fault selector", json.dumps(_copy() | {"faults": [{"point": "tool.kill_after_effect", "turn": 1}]}).encode(),
     """field 'faults/0/call_id': required, but missing (for point "tool.kill_after_effect")"""),
]  # fmt: skip


@pytest.mark.parametrize("content,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_bad_input_is_one_line_naming_the_file_and_the_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes, expected: str) -> None:
    path = _mine(tmp_path, content, monkeypatch)
    message = _error(path)
    assert expected in message, message


def test_a_whole_block_is_never_quoted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _copy() | {"description": "x" * 500, "max_steps": ["y" * 500]}
    message = _error(_mine(tmp_path, json.dumps(data).encode(), monkeypatch))
    assert "yyyyyyyyyy" not in message and "field 'max_steps': must be an integer, not an array" in message


def test_a_leading_byte_order_mark_is_accepted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _mine(tmp_path, b"\xef\xbb\xbf" + json.dumps(BASE).encode(), monkeypatch)
    assert load_scenario(path).id == NAME


def test_a_file_outside_the_working_directory_is_named_by_its_whole_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    (tmp_path / "x.json").write_text("[]", encoding="utf-8")
    with pytest.raises(ScenarioError, match=f"^{tmp_path / 'x.json'}: "):
        load_scenario(tmp_path / "x.json")


def test_a_directory_is_named_relative_to_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ScenarioError, match=r"^empty: holds no scenario files"):
        scenario_files(tmp_path / "empty")


CLI_CASES = [
    ("not UTF-8", LATIN1, "field 'user_input': not UTF-8 text"),
    ("top-level array", json.dumps([BASE]).encode(), "field '(top level)': must be an object"),
    ("wrong-typed field", json.dumps(_copy() | {"max_steps": "3"}).encode(), "field 'max_steps': must be an integer, not a string"),
]


@pytest.mark.slow  # a CLI subprocess (it stops before any column starts)
@pytest.mark.parametrize("content,expected", [c[1:] for c in CLI_CASES], ids=[c[0] for c in CLI_CASES])
def test_the_cli_exits_2_with_one_line(tmp_path: Path, content: bytes, expected: str) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / f"{NAME}.json").write_bytes(content)
    result = subprocess.run([sys.executable, str(CLI), "--scenarios", "mine", "--output", "out"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: mine/{NAME}.json: ") and expected in lines[0], result.stderr
    assert result.stdout == "" and not (tmp_path / "out").exists()
