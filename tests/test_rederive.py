"""``run_framework_comparison.py --rederive``: the committed evidence is what the judge derives from the facts it stores,
so judging it again changes nothing; a stored reason that is not what the facts give is reported by ``--check`` and
put back by ``--rederive``. Each test calls the script's ``main`` in process (about 2 s a call: every column document
judged again, FINDINGS.md, the report and the scorecard made again)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from harness.canonical_io import as_written, dumps
from harness.columns import ROOT

pytestmark = pytest.mark.slow  # each test judges every column document again, some of them twice or three times

CLI = ROOT / "scripts" / "run_framework_comparison.py"
EVIDENCE = ROOT / "evidence"


@cache
def _cli() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_framework_comparison", CLI)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """The script's exit status and what it printed (stdout and stderr)."""
    code = _cli().main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "evidence"
    shutil.copytree(EVIDENCE, copy)
    return copy


def _contents(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_the_committed_evidence_rederives_with_no_drift(capsys: pytest.CaptureFixture[str]) -> None:
    code, said = _main(capsys, "--rederive", "--check")
    assert code == 0 and said.strip().startswith("--rederive --check against ") and said.strip().endswith(": no drift"), said


def test_rederive_on_a_copy_of_the_evidence_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    evidence = _copy(tmp_path)
    before = _contents(evidence)
    code, said = _main(capsys, "--rederive", "--output", str(evidence))
    assert code == 0 and said.strip().endswith("changed: nothing"), said
    assert _contents(evidence) == before  # byte for byte, and no file added or removed


def _first_reason(document: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """The first stored reason of a column document: its mode, its record's key and the reason itself."""
    return next((mode, key, record["reasons"][0]) for mode, body in document["modes"].items()
                for key, record in body["scenarios"].items() if record["reasons"])


def test_a_stored_reason_edited_by_hand_is_reported_and_put_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    evidence = tmp_path / "evidence"  # the engine's runs and one column: its views made from them first, so the edit is the only drift
    evidence.mkdir()
    for name in ("handwritten.json", "langgraph.json"):
        shutil.copy(EVIDENCE / name, evidence / name)
    assert _main(capsys, "--rederive", "--output", str(evidence))[0] == 0
    path = evidence / "langgraph.json"
    original = path.read_bytes()
    document = json.loads(original)
    assert as_written(dumps(document)).encode("utf-8") == original  # written back as the comparison writes it, the edit is the only change
    mode, key, reason = _first_reason(document)
    reason["text"] = reason["text"].replace("ran", "did not run", 1) if "ran" in reason["text"] else reason["text"] + " (edited)"
    path.write_text(as_written(dumps(document)), encoding="utf-8")
    assert path.read_bytes() != original

    code, said = _main(capsys, "--rederive", "--check", "--output", str(evidence))
    assert code == 1 and said.strip().endswith(": 1 would change: langgraph.json"), said
    assert path.read_bytes() != original  # --check writes nothing

    code, said = _main(capsys, "--rederive", "--output", str(evidence))
    assert code == 0 and said.strip().endswith("changed: langgraph.json"), said
    assert path.read_bytes() == original, (mode, key)
    assert _main(capsys, "--rederive", "--check", "--output", str(evidence))[0] == 0
