"""``scripts/compare_pins.py``: what changed between two pins of one framework, from their evidence. It names the
constants that moved as the evidence holds them, prints every differing cell, says one line and exits 2 on an unknown
framework or pin, and shows an edit of one pin's evidence (run as a reader runs it: a process of its own)."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.columns import ROOT, known_columns
from harness.runner_side.run.environments import column_at, pin_version

EVIDENCE = ROOT / "evidence"
SCRIPT = ROOT / "scripts" / "compare_pins.py"
REGISTRY = known_columns()
OLD, NEW = column_at(REGISTRY, "langgraph", "0.6.11"), column_at(REGISTRY, "langgraph", pin_version(REGISTRY["langgraph"]))


def _document(column: str, directory: Path = EVIDENCE) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((directory / f"{column}.json").read_text(encoding="utf-8"))
    return document


def _compare(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True, text=True, cwd=ROOT, timeout=60)


def _joined(text: str) -> str:
    """The printed text with its wrapped lines joined again."""
    return " ".join(text.split())


def test_compare_pins_names_the_constants_that_moved_as_the_evidence_holds_them() -> None:
    old, new = _document(OLD.name), _document(NEW.name)
    done = _compare("langgraph", pin_version(OLD), pin_version(NEW))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    said = _joined(done.stdout)
    for name in ("step_limit", "tool_error", "interrupt_ids"):  # the recursion limit, the tool node's errors, the interrupt ids
        a, b = old["constants"][name], new["constants"][name]
        assert a["value"] != b["value"], name
        assert f"{name}: {a['value']} vs {b['value']} ({a['ref']})" in said, name
    for role, where in new["mechanisms"].items():
        if old["mechanisms"][role] != where:
            assert f"{role}: {old['mechanisms'][role]['ref']} {old['mechanisms'][role]['file']}:{old['mechanisms'][role]['line']} vs" in said
    assert f"langgraph {old['versions']['langgraph']} vs {new['versions']['langgraph']}" in said
    assert all(len(line) <= 100 for line in done.stdout.splitlines())
    assert _compare("langgraph", pin_version(NEW), pin_version(OLD)).stdout == done.stdout  # the older pin first, whatever the order


@pytest.mark.parametrize(("argv", "message"), [
    (("nosuch", "1.0", "2.0"), "no such framework 'nosuch'"),
    (("langgraph", "0.6.11", "9.9.9"), "langgraph has no pin 9.9.9"),
    (("langgraph", "0.6.11", "0.6.11"), "two different pins"),
])
def test_an_unknown_framework_or_pin_is_one_line_and_exit_2(argv: tuple[str, ...], message: str) -> None:
    done = _compare(*argv)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("error: ") and message in done.stderr, done.stderr


def test_an_edit_of_one_pins_evidence_shows_in_the_comparison(tmp_path: Path) -> None:
    for column in (OLD, NEW):
        shutil.copy(EVIDENCE / f"{column.name}.json", tmp_path / f"{column.name}.json")
    edited = _document(OLD.name, tmp_path)
    record = edited["modes"]["defaults"]["scenarios"]["always_deny"]
    cell = record["columns"]["side_effects"]
    newer = _document(NEW.name)["modes"]["defaults"]["scenarios"]["always_deny"]["columns"]["side_effects"]["framework"]
    assert cell["framework"] == newer  # the same at both pins as committed
    cell["framework"] = copy.deepcopy(cell["framework"])
    cell["framework"]["c1"]["effects"] += 5
    (tmp_path / f"{OLD.name}.json").write_text(json.dumps(edited), encoding="utf-8")
    before = _compare("langgraph", pin_version(OLD), pin_version(NEW), "--evidence", str(tmp_path))
    assert before.returncode == 0, before.stderr
    assert "\ndefaults/always_deny/side_effects\n" in before.stdout
    assert f"side_effects.c1.effects {newer['c1']['effects'] + 5} vs {newer['c1']['effects']}" in before.stdout
    assert "\ndefaults/always_deny/side_effects\n" not in _compare("langgraph", pin_version(OLD), pin_version(NEW)).stdout
