"""A scenario file from a stranger can write nothing outside the run's own directories (issue 33).

A ``session_id`` that is a path (absolute, or climbing with ``..``) once made the ``handwritten`` column keep a
session's records in the user's live MCP session directory, where one ``grant`` step ran the user's waiting transfer.
Now every such field has a plain-name pattern (one line, exit 2, before any column runs, nothing written), and every
path built from scenario text goes through ``harness.paths.inside``, which refuses what leads outside its root even
when a caller skipped the schema. Scenario text printed by the CLIs has its control characters escaped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from adapters.handwritten.column import HandwrittenColumn
from harness.columns import ROOT
from harness.errors import HarnessError, ScenarioError
from harness.paths import inside
from harness.scenarios import SCENARIO_DIR, load_scenarios

BASE: dict[str, Any] = json.loads((SCENARIO_DIR / "high_risk_approved.json").read_text(encoding="utf-8"))


def _scenario(directory: Path, **fields: Any) -> Path:
    """A copy of ``high_risk_approved`` with ``fields`` changed, as ``<id>.json`` in ``directory``."""
    data = json.loads(json.dumps(BASE)) | fields
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{data['id']}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.fixture
def live_session(tmp_path: Path) -> Path:
    """A directory standing for the user's live MCP session (``serve_mcp.py --state-dir``): nothing may appear in it."""
    live = tmp_path / "live" / "sess-user"
    live.mkdir(parents=True)
    (live / "pending.json").write_text("{}", encoding="utf-8")
    return live


@pytest.mark.parametrize("session_id", ["ABSOLUTE", "../../live/sess-user", "sess/../../x", "..", "sess\n", "-rf", ""])
def test_a_session_id_that_is_not_a_plain_name_is_refused_before_anything_runs(tmp_path: Path, live_session: Path, session_id: str) -> None:
    session_id = str(live_session) if session_id == "ABSOLUTE" else session_id
    directory = tmp_path / "mine"
    _scenario(directory, session_id=session_id, driver=[*BASE["driver"], {"action": "grant", "tool": "transfer_funds", "arguments": {}}][:1])
    before = _tree(tmp_path)
    for script, extra in (("validate_scenario.py", [str(directory / "high_risk_approved.json")]),
                          ("run_framework_comparison.py", ["--framework", "handwritten", "--scenarios", str(directory), "--output", str(tmp_path / "out")])):
        done = subprocess.run([sys.executable, str(ROOT / "scripts" / script), *extra], capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert done.returncode == 2, (script, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "field 'session_id'" in lines[0], (script, done.stderr)
    assert _tree(tmp_path) == before  # nothing written anywhere: not in the live session, not an --output


@pytest.mark.parametrize("scenario_id", ["a" * 65, "a" * 250, "Upper", "x.y", "x\n"])
def test_a_scenario_id_must_work_as_a_file_name_everywhere(tmp_path: Path, scenario_id: str) -> None:
    directory = tmp_path / "mine"
    data = json.loads(json.dumps(BASE)) | {"id": scenario_id}
    directory.mkdir()
    (directory / f"{scenario_id[:200]}.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ScenarioError, match="field 'id'"):
        load_scenarios(directory)


def test_a_64_character_id_loads(tmp_path: Path) -> None:
    _scenario(tmp_path, id="a" * 64)
    assert [s.id for s in load_scenarios(tmp_path)] == ["a" * 64]


def test_inside_refuses_every_way_out(tmp_path: Path) -> None:
    root = tmp_path / "scratch"
    root.mkdir()
    (root / "link").symlink_to(tmp_path)
    assert inside(root, "contract/crash_resume@write_held.again") == root / "contract" / "crash_resume@write_held.again"
    for name in ("/etc", "..", "../x", "a/../../b", ".", "", "a\nb", "a\x00b", "link/../..", "x" * 129):
        with pytest.raises(HarnessError):
            inside(root, name)
    with pytest.raises(HarnessError, match="leads outside"):
        inside(root, "link", "x")  # a symbolic link planted inside the root


def test_the_engine_column_keeps_a_session_inside_its_scratch_even_past_the_schema(tmp_path: Path, live_session: Path) -> None:
    column = HandwrittenColumn()
    assert column.boundary_records(tmp_path, "sess-1") is not None
    for session in (str(live_session), "../live/sess-user"):
        with pytest.raises(HarnessError, match="session id"):
            column.boundary_records(tmp_path / "scratch", session)
    assert sorted(os.listdir(live_session)) == ["pending.json"]


def test_scenario_text_is_printed_with_its_control_characters_escaped(tmp_path: Path) -> None:
    """A bad file's message, and the walkthrough of a good one, never send a terminal an escape sequence."""
    bad = _scenario(tmp_path / "bad", tools=["nope\x1b]0;pwned\x07"])
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "validate_scenario.py"), str(bad)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "\x1b" not in done.stderr and "\x07" not in done.stderr and "\\x1b]0;pwned\\x07" in done.stderr, done.stderr
    turns = json.loads(json.dumps(BASE["model_script"]))
    turns[-1] = {"text": "done \x1b[2J\u202e"}
    good = _scenario(tmp_path / "good", model_script=turns)
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "validate_scenario.py"), str(good)], capture_output=True, text=True, timeout=120)
    printed = done.stdout + done.stderr
    assert "\x1b" not in printed and "\u202e" not in printed, printed
