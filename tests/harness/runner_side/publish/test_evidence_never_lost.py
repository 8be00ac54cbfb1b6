"""Evidence never lost: every committed output of the comparison (the evidence files, FINDINGS.md, report.html,
scorecard.svg, timings.json) is written through ``harness.canonical_io``: to a new file beside it, renamed into
place, so a failure leaves the committed file as it was; and text a column sent with a lone surrogate in it is
written escaped, as valid UTF-8 that reads back as the same string."""

from __future__ import annotations

import ast
import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.canonical_io import as_written, canonical_line, dumps, write_files, write_json, write_text_atomic
from harness.columns import ROOT
from harness.runner_side.publish.drift import diff_documents
from harness.runner_side.publish.output_dir import output_as_it_was

CLI = ROOT / "scripts" / "run_framework_comparison.py"
COMMITTED = ROOT / "evidence" / "handwritten.json"


def _with_surrogates(document: dict[str, Any]) -> dict[str, Any]:
    """The committed engine evidence with lone surrogates where a column's text lands: a recorded wire request's
    header, the roles it sent, a tool result in its trace (``"\\ud800"`` in a request's JSON parses to one)."""
    edited = copy.deepcopy(document)
    record = edited["modes"]["wire"]["scenarios"]["always_deny"]
    record["wire_requests"][0]["idempotency_key"] += "\ud800"
    record["model_requests"][0] += " \udfff"
    record["trace"].append({"kind": "tool_result", "call_id": "c\udc80", "content": '{"city":"\ud83d"}', "driver_step": 0})
    return edited


def _only(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def test_a_lone_surrogate_in_a_recorded_request_is_written_escaped_and_reads_back_as_it_was(tmp_path: Path) -> None:
    committed = COMMITTED.read_bytes()
    document = _with_surrogates(json.loads(committed))
    path = tmp_path / "handwritten.json"
    path.write_bytes(committed)
    write_json(path, document)
    text = path.read_bytes().decode("utf-8")  # strict: valid UTF-8
    assert "sess-always_deny/turn-0\\ud800" in text and '"c\\udc80"' in text and '\\"\\ud83d\\"' in text
    assert json.loads(text) == document
    assert _only(tmp_path) == ["handwritten.json"]
    # the comparison reads its output as it wrote it: --check against it finds nothing drifted
    assert diff_documents("handwritten.json", output_as_it_was(tmp_path)["handwritten.json"], document) == []


def test_a_trace_line_and_a_text_file_with_a_lone_surrogate_are_valid_utf8(tmp_path: Path) -> None:
    event = {"kind": "model_turn", "final_text": "done\ud800", "call_ids": ["c\udbff"]}
    line = canonical_line(event)
    assert json.loads(line.encode("utf-8")) == event and line == '{"call_ids":["c\\udbff"],"final_text":"done\\ud800","kind":"model_turn"}\n'
    findings = "# Findings\n\nthe model sent `\udc00` and `x`\n"
    write_files(tmp_path, {"FINDINGS.md": findings, "availability.json": {"columns": {"c\ud800": {}}}})
    assert (tmp_path / "FINDINGS.md").read_bytes().decode("utf-8") == as_written(findings) == "# Findings\n\nthe model sent `\\udc00` and `x`\n"
    assert json.loads((tmp_path / "availability.json").read_bytes().decode("utf-8")) == {"columns": {"c\ud800": {}}}


def test_text_without_a_surrogate_is_written_byte_for_byte_as_before(tmp_path: Path) -> None:
    document = json.loads(COMMITTED.read_bytes())
    write_json(tmp_path / "handwritten.json", document)
    assert (tmp_path / "handwritten.json").read_bytes() == COMMITTED.read_bytes() == dumps(document).encode("utf-8")
    text = "naïve — 😀 ✓\n"
    write_text_atomic(tmp_path / "t.md", text)
    assert (tmp_path / "t.md").read_bytes() == text.encode("utf-8")


UNWRITABLE: dict[str, Any] = {
    "an object JSON has no spelling for": {"requests": [object()]},
    "NaN": {"wall_s": float("nan")},
    "a key JSON cannot have": {"columns": {("a", "b"): 1}},
    "a set": {"tools": {"get_weather"}},
}


@pytest.mark.parametrize("value", list(UNWRITABLE.values()), ids=list(UNWRITABLE))
def test_a_value_json_cannot_serialise_leaves_the_committed_file_as_it_was(tmp_path: Path, value: Any) -> None:
    committed = COMMITTED.read_bytes()
    (tmp_path / "handwritten.json").write_bytes(committed)
    with pytest.raises((TypeError, ValueError)):
        write_files(tmp_path, {"handwritten.json": value})
    assert (tmp_path / "handwritten.json").read_bytes() == committed
    assert _only(tmp_path) == ["handwritten.json"]


# A write the system refuses part-way (EFBIG past the file size limit: what a full disk does to a write), in a child
# process whose limit is set only after its imports.
_FAILING_WRITE = """
import resource, signal, sys
from pathlib import Path
from harness.canonical_io import write_json, write_text_atomic
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
path, big = Path(sys.argv[1]), ["a recorded request " * 8] * 2000
try:
    write_json(path, {"requests": big}) if path.suffix == ".json" else write_text_atomic(path, "\\n".join(big))
except OSError as exc:
    print(exc.errno)
"""


@pytest.mark.slow  # a child process
@pytest.mark.parametrize("name", ["handwritten.json", "FINDINGS.md"])
def test_a_write_that_fails_part_way_leaves_the_committed_file_as_it_was(tmp_path: Path, name: str) -> None:
    committed = COMMITTED.read_bytes()[:3000]  # under the child's size limit
    (tmp_path / name).write_bytes(committed)
    done = subprocess.run([sys.executable, "-c", _FAILING_WRITE, str(tmp_path / name)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "27"), done.stderr  # EFBIG: the write did fail
    assert (tmp_path / name).read_bytes() == committed
    assert _only(tmp_path) == [name]


def test_the_file_keeps_its_permissions_and_a_link_is_written_through(tmp_path: Path) -> None:
    (tmp_path / "kept.json").write_text("{}\n", encoding="utf-8")
    os.chmod(tmp_path / "kept.json", 0o640)
    write_json(tmp_path / "kept.json", {"a": 1})
    assert (tmp_path / "kept.json").stat().st_mode & 0o777 == 0o640
    umask = os.umask(0o022)
    try:
        write_json(tmp_path / "new.json", {"a": 1})
    finally:
        os.umask(umask)
    assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o644  # as any new file, not mkstemp's 0600
    (tmp_path / "link.json").symlink_to("kept.json")
    write_json(tmp_path / "link.json", {"b": 2})
    assert (tmp_path / "link.json").is_symlink() and json.loads((tmp_path / "kept.json").read_text(encoding="utf-8")) == {"b": 2}


# Every module that writes committed output of the comparison, and the calls that would write a file in place.
WRITERS = [CLI, ROOT / "harness" / "runner_side" / "pipeline.py", *sorted((ROOT / "harness" / "runner_side" / "publish").rglob("*.py"))]


def _writes_in_place(call: ast.Call) -> bool:
    """``x.write_text(...)``, ``x.write_bytes(...)``, ``json.dump(...)``, or an ``open`` for writing."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    if name in ("write_text", "write_bytes", "dump"):
        return True
    if name not in ("open", "fdopen"):
        return False
    index = 0 if isinstance(call.func, ast.Attribute) and name == "open" else 1  # Path.open(mode), open(file, mode), os.fdopen(fd, mode)
    mode = next((k.value for k in call.keywords if k.arg == "mode"), call.args[index] if len(call.args) > index else None)
    if mode is None:
        return False  # reading
    return not isinstance(mode, ast.Constant) or any(c in str(mode.value) for c in "wax+")


@pytest.mark.parametrize("module", WRITERS, ids=[str(p.relative_to(ROOT)) for p in WRITERS])
def test_committed_output_is_written_only_through_the_canonical_writer(module: Path) -> None:
    calls = [node for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))) if isinstance(node, ast.Call)]
    assert [f"line {c.lineno}: {ast.unparse(c)[:80]}" for c in calls if _writes_in_place(c)] == []


SURROGATE_ARGS = '{"city": "\\ud800"}'  # a model's arguments text: JSON that parses to a lone surrogate


@pytest.mark.slow  # the comparison CLI and its column processes
def test_the_comparison_measures_a_scenario_whose_model_sends_a_lone_surrogate(tmp_path: Path) -> None:
    scenarios, output = tmp_path / "scenarios", tmp_path / "out"
    scenarios.mkdir()
    data = json.loads((ROOT / "scenarios" / "malformed_args_not_json.json").read_text(encoding="utf-8"))
    data["model_script"][0]["tool_calls"][0]["arguments"] = SURROGATE_ARGS  # the engine answers it as it answers text that is not JSON
    (scenarios / "malformed_args_not_json.json").write_text(json.dumps(data), encoding="utf-8")
    shutil.copytree(ROOT / "evidence", output, ignore=shutil.ignore_patterns("evidence.schema.json"))
    done = subprocess.run([sys.executable, str(CLI), "--framework", "local_state_graph", "--mode", "contract", "--scenarios", str(scenarios),
                           "--output", str(output)], cwd=ROOT, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "handwritten/contract: 1/1 scenarios match their expectations" in done.stdout
    for name in ("handwritten.json", "local_state_graph.json", "availability.json", "FINDINGS.md", "report.html", "scorecard.svg", "timings.json"):
        (output / name).read_bytes().decode("utf-8")  # every output file whole and valid UTF-8
    record = json.loads((output / "handwritten.json").read_text(encoding="utf-8"))["modes"]["contract"]["scenarios"]["malformed_args_not_json"]
    assert record["status"] == "ok" and record["actual"]["status"] == "completed"
    assert not [p.name for p in output.iterdir() if p.name.endswith(".tmp")]
