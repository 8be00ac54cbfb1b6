"""Bad scenario files give an error naming the file and the field; expected blocks stay with the hand-written check."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ScenarioError
from harness.scenarios import (
    SCENARIO_DIR,
    Scenario,
    load_expectations,
    load_scenario,
    load_scenarios,
)

BASE = json.loads((SCENARIO_DIR / "high_risk_approved.json").read_text(encoding="utf-8"))


def _write(tmp_path: Path, edit: Callable[[dict[str, Any]], None], name: str = "high_risk_approved.json") -> Path:
    data = json.loads(json.dumps(BASE))
    edit(data)
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


CASES = [
    ("missing field", lambda d: d.pop("model_script"), "field 'model_script'", "required, but missing"),
    ("wrong type", lambda d: d.update(max_steps="3"), "field 'max_steps'", "must be an integer, not a string"),
    ("unknown fixture tool", lambda d: d["tools"].append("launch_rocket"), "field 'tools/2'", "unknown fixture tool 'launch_rocket'"),
    ("unknown driver action", lambda d: d["driver"].append({"action": "dance"}), "field 'driver/2/action'", '"dance" is not one of'),
    ("driver names no scripted call", lambda d: d["driver"][1].update(call_id="c9"), "field 'driver/1/call_id'", "'c9'"),
    ("approve without a call id", lambda d: d["driver"][1].pop("call_id"), "field 'driver/1/call_id'", 'missing (for action "approve")'),
    ("unknown fault point", lambda d: d["faults"].append({"point": "tool.explode", "call_id": "c1"}), "field 'faults/0/point'", '"tool.explode" is not one of'),
    ("expected block missing a field", lambda d: d["expected"].pop("side_effects"), "field 'expected/side_effects'", "missing"),
    ("other_call without the other call", lambda d: d["driver"][1].update(action="misuse_token", misuse="other_call"), "field 'driver/1/other_call_id'",
     "required, but missing"),
    ("other_call_id naming no scripted call", lambda d: d["driver"][1].update(action="misuse_token", misuse="other_call", other_call_id="c9"),
     "field 'driver/1/other_call_id'", "'c9'"),
    ("other_call_id naming the decided call", lambda d: d["driver"][1].update(action="misuse_token", misuse="other_call", other_call_id="c1"),
     "field 'driver/1/other_call_id'", "another call"),
    ("other_call_id with another misuse", lambda d: d["driver"][1].update(action="misuse_token", misuse="expired", other_call_id="c1"),
     "field 'driver/1", "other_call_id"),
    ("id differs from the file name", lambda d: d.update(id="other_name"), "field 'id'", "high_risk_approved"),
]


@pytest.mark.parametrize("edit,field,detail", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_malformed_scenario_names_the_file_and_the_field(tmp_path: Path, edit: Callable[[dict[str, Any]], None], field: str, detail: str) -> None:
    path = _write(tmp_path, edit)
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")  # tmp_path is outside the working directory: shown whole
    assert field in message and detail in message, message


def test_invalid_json_names_the_file_and_the_position(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"id": "broken",', encoding="utf-8")
    with pytest.raises(ScenarioError, match="^" + re.escape(f"{path}: not valid JSON at line 1")):
        load_scenario(path)


def test_an_empty_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="holds no scenario files"):
        load_scenarios(tmp_path)


def test_columns_receive_scenarios_without_expected() -> None:
    fields = {f.name for f in dataclasses.fields(Scenario)}
    assert "expected" not in fields
    assert all(not hasattr(s, "expected") for s in load_scenarios())


def test_editing_expected_changes_nothing_a_column_receives(tmp_path: Path) -> None:
    shutil.copy(SCENARIO_DIR / "high_risk_approved.json", tmp_path / "high_risk_approved.json")
    before = load_scenarios(tmp_path)
    _write(tmp_path, lambda d: d["expected"].update(status="error"))
    assert load_scenarios(tmp_path) == before
    assert load_expectations(tmp_path)["high_risk_approved"]["status"] == "error"
