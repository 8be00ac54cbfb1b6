"""Every bad input is one line naming the file (by a path relative to where the user stands), the field
where there is one, and the problem: the loader raises it, and the comparison CLI and validate_scenario.py
print it and exit 2 before any column starts, having written nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.columns import ROOT
from harness.errors import ScenarioError
from harness.scenarios import MAX_BYTES, SCENARIO_DIR, load_scenario, load_scenarios, scenario_files

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


def _text(data: dict[str, Any]) -> bytes:
    """The scenario as JSON text with ``": "`` separators, for edits that no JSON value can express."""
    return json.dumps(data).encode()


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
    ("save fault without its selector", json.dumps(_copy() | {"faults": [{"point": "state.kill_after_save"}]}).encode(),
     """field 'faults/0/save': required, but missing (for point "state.kill_after_save")"""),
    ("save fault naming a call", json.dumps(_copy() | {"faults": [{"point": "state.kill_after_save", "save": 1, "call_id": "c1"}]}).encode(),
     """field 'faults/0': must not have 'call_id' (for point "state.kill_after_save")"""),
    ("save selector on a call's fault", json.dumps(_copy() | {"faults": [{"point": "tool.kill_after_effect", "call_id": "c1", "save": 2}]}).encode(),
     """field 'faults/0': must not have 'save' (for point "tool.kill_after_effect")"""),
    ("save numbered from 1", json.dumps(_copy() | {"faults": [{"point": "state.kill_after_save", "save": 0}]}).encode(),
     "field 'faults/0/save': 0 is less than the minimum of 1"),
    # what Python's json accepts but the loader refuses (harness/json_input.py), each naming the field
    ("nested past the recursion limit", b"[" * 100_000 + b"]" * 100_000, "nested too deeply (at most 32 levels of arrays and objects)"),
    ("nested past the bound", _text(BASE).replace(b'"amount_cents": 2500', b'"amount_cents": ' + b"[" * 40 + b"]" * 40),
     "field 'model_script/0/tool_calls/0/arguments/amount_cents/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0': nested too deeply"),
    ("5,000-digit integer", _text(BASE).replace(b'"max_steps": 8', b'"max_steps": ' + b"9" * 5000),
     "field 'max_steps': integer 999999999999… (5,000 digits) is outside ±(2**53 - 1)"),
    ("integer past 2**53", _text(BASE).replace(b'"max_steps": 8', b'"max_steps": 9007199254740992'),
     "field 'max_steps': integer 9007199254740992 is outside ±(2**53 - 1)"),
    ("NaN", _text(BASE).replace(b'"max_steps": 8', b'"max_steps": NaN'), "field 'max_steps': NaN is not JSON"),
    ("Infinity", _text(BASE).replace(b'"amount_cents": 2500', b'"amount_cents": -Infinity'),
     "field 'model_script/0/tool_calls/0/arguments/amount_cents': -Infinity is not JSON"),
    ("a number that overflows", _text(BASE).replace(b'"amount_cents": 2500', b'"amount_cents": 1e999'),
     "field 'model_script/0/tool_calls/0/arguments/amount_cents': number 1e999 is too large: it would be read as infinity"),
    ("repeated key", _text(BASE).replace(b'"max_steps": 8', b'"max_steps": 8, "max_steps": 80'), "field 'max_steps': appears twice in one object"),
    ("repeated key deep", _text(BASE).replace(b'"event_id": "e1"', b'"event_id": "e1", "event_id": "e2"'), "field 'driver/0/event_id': appears twice"),
    ("lone surrogate", _text(BASE).replace(b'"user_input": "', b'"user_input": "\\ud800', 1), "field 'user_input': holds a lone surrogate escape"),
    ("lone surrogate in a key", _text(BASE).replace(b'"faults": []', b'"faults": [], "\\udfff": 1'), "field '\\udfff': this key holds a lone surrogate"),
    ("huge array", json.dumps(_copy() | {"driver": [{"action": "resume"}] * 4097}).encode(),
     "field 'driver': too many elements: 4,097, over the limit of 4,096 in one array"),
    ("huge object", json.dumps(_copy() | {"expected": {f"k{i}": i for i in range(5000)}}).encode(),
     "field 'expected': too many elements: 5,000, over the limit of 4,096 in one object"),
    ("repeated tool", json.dumps(_copy() | {"tools": ["get_balance", "transfer_funds", "get_balance"]}).encode(),
     """field 'tools': "get_balance" appears more than once (each item at most once)"""),
    # jsonschema's own uniqueItems compares every pair of objects: minutes for these, where the items rule says it at once
    ("tools that are objects", json.dumps(_copy() | {"tools": [{"n": i} for i in range(4096)]}).encode(), "field 'tools/4095': must be a string, not an object"),
    ("UTF-16", json.dumps(BASE).encode("utf-16"), "not UTF-8 text (byte 0xff at line 1 column 1)"),
    ("snapshot name leaving the scratch directory", json.dumps(_copy() | {"driver": [BASE["driver"][0], {"action": "snapshot", "name": "../../x"}]}).encode(),
     "field 'driver/1/name': \"../../x\" does not match"),
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


def _sized(size: int) -> bytes:
    """A valid scenario padded with trailing whitespace to exactly ``size`` bytes."""
    text = json.dumps(BASE).encode()
    return text + b" " * (size - len(text))


def test_a_file_of_exactly_1_mib_is_read_and_one_byte_more_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _mine(tmp_path, _sized(MAX_BYTES), monkeypatch)
    assert MAX_BYTES == 1 << 20 and load_scenario(path).id == NAME
    path.write_bytes(_sized(MAX_BYTES + 1))
    assert _error(path) == f"mine/{NAME}.json: too large: 1,048,577 bytes, over the limit of 1 MiB (1,048,576 bytes)"


def test_a_huge_file_is_refused_by_its_size_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _mine(tmp_path, b"", monkeypatch)
    with path.open("wb") as file:
        file.truncate(1 << 40)  # a sparse terabyte: reading it whole would never finish
    assert _error(path) == f"mine/{NAME}.json: too large: 1,099,511,627,776 bytes, over the limit of 1 MiB (1,048,576 bytes)"


def _symlink_loop(path: Path) -> None:
    path.symlink_to(path.name)


def _fifo(path: Path) -> None:
    os.mkfifo(path)  # read with a plain open(), it would block until a writer comes: the run would hang


NOT_FILES: list[tuple[str, Callable[[Path], None], str]] = [
    ("a directory named x.json", lambda p: p.mkdir(), "cannot be read: a directory, not a regular file"),
    ("a FIFO", _fifo, "cannot be read: a FIFO (named pipe), not a regular file"),
    ("a symbolic link loop", _symlink_loop, "cannot be read: a symbolic link loop"),
    ("a link to a missing file", lambda p: p.symlink_to("gone.json"), "cannot be read: a symbolic link to nothing (gone.json does not exist)"),
]


@pytest.mark.parametrize("make,expected", [c[1:] for c in NOT_FILES], ids=[c[0] for c in NOT_FILES])
def test_what_is_not_a_regular_file_is_named_as_what_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: Callable[[Path], None], expected: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    make(tmp_path / "mine" / f"{NAME}.json")
    assert _error(Path("mine") / f"{NAME}.json") == f"mine/{NAME}.json: {expected}"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its permissions say")
def test_an_unreadable_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _mine(tmp_path, json.dumps(BASE).encode(), monkeypatch)
    path.chmod(0)
    assert _error(path) == f"mine/{NAME}.json: cannot be read: Permission denied"


def test_a_link_to_a_scenario_file_is_read_as_that_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "elsewhere.json").write_text(json.dumps(BASE), encoding="utf-8")
    (tmp_path / "mine" / f"{NAME}.json").symlink_to(tmp_path / "elsewhere.json")
    assert [s.id for s in load_scenarios(Path("mine"))] == [NAME]


NOT_DIRECTORIES: list[tuple[str, Callable[[Path], None], str]] = [
    ("a file", lambda p: p.write_text("{}", encoding="utf-8"), "mine: a file, not a directory of scenario files"),
    ("a FIFO", _fifo, "mine: a FIFO (named pipe), not a directory of scenario files"),
    ("missing", lambda p: None, "mine: not a directory of scenario files: No such file or directory"),
    ("a symbolic link loop", _symlink_loop, "mine: not a directory of scenario files: a symbolic link loop"),
]


@pytest.mark.parametrize("make,expected", [c[1:] for c in NOT_DIRECTORIES], ids=[c[0] for c in NOT_DIRECTORIES])
def test_a_scenarios_directory_that_is_not_one_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: Callable[[Path], None], expected: str) -> None:
    monkeypatch.chdir(tmp_path)
    make(tmp_path / "mine")
    with pytest.raises(ScenarioError) as info:
        load_scenarios(tmp_path / "mine")  # given whole, shown relative to where the user stands
    assert str(info.value) == expected


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


def _scenario_dir(tmp_path: Path, content: bytes | None = None, name: str = f"{NAME}.json") -> str:
    """A scenarios directory under ``tmp_path`` named uniquely (its default output is ``runs/<that name>/`` in the
    repository, which the test checks stays absent), holding one file when ``content`` is given."""
    directory = tmp_path / f"mine_{uuid.uuid4().hex[:12]}"
    directory.mkdir()
    if content is not None:
        (directory / name).write_bytes(content)
    return directory.name


def _valid(tmp_path: Path) -> str:
    return _scenario_dir(tmp_path, json.dumps(BASE).encode())


def _with(make: Callable[[Path], None]) -> Callable[[Path], list[str]]:
    def setup(tmp_path: Path) -> list[str]:
        directory = _scenario_dir(tmp_path)
        make(tmp_path / directory / f"{NAME}.json")
        return ["--scenarios", directory]

    return setup


def _output_file(tmp_path: Path) -> list[str]:
    (tmp_path / "out").write_text("evidence?", encoding="utf-8")
    return ["--scenarios", _valid(tmp_path), "--output", "out"]


def _output_with_bad_json(tmp_path: Path) -> list[str]:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "handwritten.json").write_text("{", encoding="utf-8")
    return ["--scenarios", _valid(tmp_path), "--output", "out"]


def _output_loop(tmp_path: Path) -> list[str]:
    (tmp_path / "out").symlink_to("out")
    return ["--scenarios", _valid(tmp_path), "--output", "out"]


def _output_is_scenarios(tmp_path: Path) -> list[str]:
    directory = _valid(tmp_path)
    return ["--scenarios", directory, "--output", f"{directory}/"]


def _huge(tmp_path: Path) -> list[str]:
    directory = _scenario_dir(tmp_path, b"")
    with (tmp_path / directory / f"{NAME}.json").open("wb") as file:
        file.truncate(60 << 20)  # 60 MB (sparse)
    return ["--scenarios", directory]


def _loop_directory(tmp_path: Path) -> list[str]:
    (tmp_path / "loop").symlink_to("loop")
    return ["--scenarios", "loop"]


def _content(content: bytes) -> Callable[[Path], list[str]]:
    return lambda tmp_path: ["--scenarios", _scenario_dir(tmp_path, content)]


# (case, how to set it up: the CLI's arguments, what the one line says: {d} is the scenarios directory's name)
BAD_INVOCATIONS: list[tuple[str, Callable[[Path], list[str]], str]] = [
    ("deep nesting", _content(b"[" * 100_000 + b"]" * 100_000), f"error: {{d}}/{NAME}.json: nested too deeply"),
    ("5,000-digit integer", _content(_text(BASE).replace(b'"max_steps": 8', b'"max_steps": ' + b"9" * 5000)),
     f"error: {{d}}/{NAME}.json: field 'max_steps': integer 999999999999… (5,000 digits) is outside"),
    ("NaN", _content(_text(BASE).replace(b'"max_steps": 8', b'"max_steps": NaN')), f"error: {{d}}/{NAME}.json: field 'max_steps': NaN is not JSON"),
    ("repeated key", _content(_text(BASE).replace(b'"max_steps": 8', b'"max_steps": 8, "max_steps": 9')), f"error: {{d}}/{NAME}.json: field 'max_steps': appears twice"),
    ("60 MB file", _huge, f"error: {{d}}/{NAME}.json: too large: 62,914,560 bytes, over the limit of 1 MiB"),
    ("symlink loop as a scenario file", _with(_symlink_loop), f"error: {{d}}/{NAME}.json: cannot be read: a symbolic link loop"),
    ("FIFO as a scenario file", _with(_fifo), f"error: {{d}}/{NAME}.json: cannot be read: a FIFO (named pipe)"),
    ("directory named x.json", _with(lambda p: p.mkdir()), f"error: {{d}}/{NAME}.json: cannot be read: a directory"),
    ("symlink loop as --scenarios", _loop_directory, "error: loop: not a directory of scenario files: a symbolic link loop"),
    ("--scenarios naming a file", lambda t: ["--scenarios", f"{_valid(t)}/{NAME}.json"], f"error: {{d}}/{NAME}.json: a file, not a directory of scenario files"),
    ("empty --scenarios", lambda t: ["--scenarios", _scenario_dir(t)], "error: {d}: holds no scenario files (*.json)"),
    ("missing --scenarios", lambda t: ["--scenarios", "nowhere"], "error: nowhere: not a directory of scenario files: No such file or directory"),
    ("--output an existing file", _output_file, "error: --output out: a file, not a directory"),
    ("--output a symlink loop", _output_loop, "error: --output out: cannot be used: a symbolic link loop"),
    ("--output the scenarios directory", _output_is_scenarios, "error: --output {d}: must not be the scenarios directory: the evidence files would be read"),
    ("--output the committed scenarios", lambda t: ["--scenarios", _valid(t), "--output", str(SCENARIO_DIR)],
     f"error: --output {SCENARIO_DIR}: must not be in the committed"),
    ("--output inside the committed scenarios", lambda t: ["--output", str(SCENARIO_DIR / "evidence")],
     f"error: --output {SCENARIO_DIR}/evidence: must not be in the committed"),
    ("--output holding a file that is not JSON", _output_with_bad_json, "error: out/handwritten.json: not valid JSON: Expecting property name"),
    ("unknown --framework", lambda t: ["--framework", "crewai", "--scenarios", _valid(t)], "error: unknown framework crewai; known: handwritten, "),
]  # fmt: skip


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.slow  # a CLI subprocess per case (each stops before any column starts)
@pytest.mark.parametrize("setup,expected", [c[1:] for c in BAD_INVOCATIONS], ids=[c[0] for c in BAD_INVOCATIONS])
def test_bad_input_is_one_line_and_exit_2_before_any_column_runs_and_nothing_is_written(
    tmp_path: Path, setup: Callable[[Path], list[str]], expected: str
) -> None:
    args = setup(tmp_path)
    directory = next((a for a in args if a.startswith("mine_")), "").split("/")[0]
    before = _tree(tmp_path)
    scratch = tmp_path.parent / f"{tmp_path.name}_tmp"  # the run's TMPDIR, outside the tree compared
    scratch.mkdir()
    result = subprocess.run([sys.executable, str(CLI), *args], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "TMPDIR": str(scratch)})  # fmt: skip
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(expected.format(d=directory)), result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert _tree(tmp_path) == before, "the run wrote something"
    assert list(scratch.iterdir()) == [], "the run left scratch behind"  # its scratch is made only after the checks
    assert not directory or not (ROOT / "runs" / directory).exists()


VALIDATE = ROOT / "scripts" / "validate_scenario.py"


@pytest.mark.slow  # a script subprocess (it stops before the engine's column starts)
def test_validate_scenario_gives_the_same_one_line_per_bad_file(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / f"{NAME}.json").write_text(json.dumps(BASE), encoding="utf-8")
    (tmp_path / "deep.json").write_bytes(b"[" * 100_000 + b"]" * 100_000)
    os.mkfifo(tmp_path / "pipe.json")
    (tmp_path / "dir.json").mkdir()
    files = ["deep.json", "pipe.json", "dir.json", f"a/{NAME}.json", f"b/{NAME}.json"]
    before = _tree(tmp_path)
    result = subprocess.run([sys.executable, str(VALIDATE), *files], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert result.stderr.splitlines() == [
        "error: deep.json: nested too deeply (at most 32 levels of arrays and objects)",
        "error: pipe.json: cannot be read: a FIFO (named pipe), not a regular file",
        "error: dir.json: cannot be read: a directory, not a regular file",
        f"error: b/{NAME}.json: field 'id': '{NAME}' is also the id of a/{NAME}.json: run them one at a time",
    ]
    assert _tree(tmp_path) == before
    usage = subprocess.run([sys.executable, str(VALIDATE), "--tarce", "deep.json"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (usage.returncode, usage.stdout, usage.stderr) == (2, "", "error: unrecognized arguments: --tarce (see --help)\n")
