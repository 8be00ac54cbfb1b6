"""``run_framework_comparison.py --rederive``: the committed evidence is what the judge derives from the facts it stores,
so judging it again changes nothing; a stored reason that is not what the facts give is reported by ``--check`` and
put back by ``--rederive``. Each test calls the script's ``main`` in process (about 2 s a call: every column document
judged again, FINDINGS.md, the report and the scorecard made again)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from harness.canonical_io import as_written, dumps
from harness.columns import ROOT

pytestmark = pytest.mark.slow  # each test judges every column document again, some of them twice or three times

EVIDENCE = ROOT / "evidence"


@pytest.fixture
def cli(comparison_cli: ModuleType, capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str]]:
    """The script's ``main`` on ``argv``: its exit status and what it printed (stdout and stderr), its lines (wrapped at
    100 characters) joined again."""

    def main(*argv: str) -> tuple[int, str]:
        code = comparison_cli.main(list(argv))
        out = capsys.readouterr()
        return code, " ".join((out.out + out.err).split())

    return main


def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "evidence"
    shutil.copytree(EVIDENCE, copy)
    return copy


def _contents(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_the_committed_evidence_rederives_with_no_drift(cli: Callable[..., tuple[int, str]]) -> None:
    code, said = cli("--rederive", "--check")
    assert code == 0 and said.strip().startswith("--rederive --check against ") and said.strip().endswith(": no drift"), said


def test_rederive_on_a_copy_of_the_evidence_changes_nothing(tmp_path: Path, cli: Callable[..., tuple[int, str]]) -> None:
    evidence = _copy(tmp_path)
    before = _contents(evidence)
    code, said = cli("--rederive", "--output", str(evidence))
    assert code == 0 and said.strip().endswith("changed: nothing"), said
    assert _contents(evidence) == before  # byte for byte, and no file added or removed


def _first_reason(document: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """The first stored reason of a column document: its mode, its record's key and the reason itself."""
    return next((mode, key, record["reasons"][0]) for mode, body in document["modes"].items()
                for key, record in body["scenarios"].items() if record["reasons"])


def test_a_stored_reason_edited_by_hand_is_reported_and_put_back(tmp_path: Path, cli: Callable[..., tuple[int, str]]) -> None:
    evidence = tmp_path / "evidence"  # the engine's runs and one column: its views made from them first, so the edit is the only drift
    evidence.mkdir()
    for name in ("handwritten.json", "handwritten_mcp.json", "langgraph.json"):  # the engine runs its modes are compared with
        shutil.copy(EVIDENCE / name, evidence / name)
    assert cli("--rederive", "--output", str(evidence))[0] == 0
    path = evidence / "langgraph.json"
    original = path.read_bytes()
    document = json.loads(original)
    assert as_written(dumps(document)).encode("utf-8") == original  # written back as the comparison writes it, the edit is the only change
    mode, key, reason = _first_reason(document)
    reason["text"] = reason["text"].replace("ran", "did not run", 1) if "ran" in reason["text"] else reason["text"] + " (edited)"
    path.write_text(as_written(dumps(document)), encoding="utf-8")
    assert path.read_bytes() != original

    code, said = cli("--rederive", "--check", "--output", str(evidence))
    assert code == 1 and said.strip().endswith(": 1 would change: langgraph.json"), said
    assert path.read_bytes() != original  # --check writes nothing

    code, said = cli("--rederive", "--output", str(evidence))
    assert code == 0 and said.strip().endswith("changed: langgraph.json"), said
    assert path.read_bytes() == original, (mode, key)
    assert cli("--rederive", "--check", "--output", str(evidence))[0] == 0


def test_a_mode_whose_engine_run_is_missing_is_refused_not_judged_against_another(tmp_path: Path, cli: Callable[..., tuple[int, str]]) -> None:
    """LangGraph's mcp records are judged against the engine's own MCP client (``handwritten_mcp``), never the engine in
    process: without its document there is nothing to judge them against."""
    evidence = tmp_path / "evidence"
    evidence.mkdir()
    for name in ("handwritten.json", "langgraph.json"):
        shutil.copy(EVIDENCE / name, evidence / name)
    before = _contents(evidence)
    code, said = cli("--rederive", "--output", str(evidence))
    assert code == 2 and "holds no handwritten_mcp.json: nothing to judge against" in said, said
    assert _contents(evidence) == before
