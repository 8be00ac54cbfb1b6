"""The glue coverage check: the glue count (``harness.runner_side.run.glue``) against the lines each mode actually runs.

The column's scenarios run once per mode, each mode in its own column process (``harness.column_side.column_main``
in the column's environment, as the runner starts it) with line tracing (``harness.column_side.trace.lines``) of the
functions under ``adapters/``. Only what the column runs while the framework plays a driver step is
traced: the worker's ``perform``. Glue is what runs while the framework plays the step; the ``facts``,
``detail`` and explanations the column process computes from a finished run report on the run, they do
not take part in it, so a sentence that only a contract run calls for is not contract glue.

Two findings, each a list of lines, both empty when the count is exact:

- ``uncounted``: lines ``contract`` mode ran and ``defaults`` never did that are not counted as glue
  (a contract-only branch outside ``glue*.py``, the markers and the counted blocks);
- ``counted_in_defaults``: counted glue lines that ``defaults`` ran.

Only the files whose lines a column's count can name are checked: the column's own folder and the
shared ``adapters/*.py`` (the base ``column.py``, ``glue_blocks.py``, ...). Lines are physical lines:
a contract-only part of a line that both modes run (``x if contract else y``) is not seen.

A line that only ``contract`` reaches because the scenarios take another path in ``defaults`` (the
framework stops earlier, say) is not contract-only code, yet the trace cannot tell it from glue. A
column declares such code, function by function and with the reason, in its class attribute
``defaults_never_reaches`` (``{"<file in the column's folder>:<qualified function>": "<why>"}``,
e.g. ``"tools.py:fixture_tools.get_weather"``): the lines of a declared function that run only in
``contract`` are reported as declared, with the reason, not as uncounted. A declaration that names
no function of the column's files fails the check; one that excuses no line in this run is noted.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.columns import ROOT, Column
from harness.ledger_server import LedgerServer
from harness.modes import GLUE_MODES
from harness.records import DEFAULTS_NEVER_REACHES as DECLARATION
from harness.runner_side.run.glue import counted_lines, glue_parts
from harness.runner_side.run.sandbox import clean_environment
from harness.runner_side.run.users import read_column_file

TRACE_TIMEOUT_S = 300.0  # per scenario: tracing slows a framework's own code down several times
BOOTSTRAP = (
    "import sys; sys.path[:0] = sys.argv[1].split(':'); "
    "from harness.column_side.trace.lines import install; install(sys.argv[2], sys.argv[3]); "
    "from harness.column_side.trace.lines import write_declared; write_declared(sys.argv[4], sys.argv[5]); "
    "from harness.column_side.column_main import main; sys.exit(main(sys.argv[6:]))"
)
Lines = dict[Path, set[int]]


@dataclass
class Coverage:
    """The check's result for one column: the two findings (label -> line numbers); the lines run only in
    ``contract`` that the column declares ``defaults`` never reaches (declaration -> line numbers, with
    ``declared`` its reasons), the declarations that name no function (declaration -> why), and the
    scenarios whose run ended a step in an error in some mode (their coverage is partial)."""

    column: str
    uncounted: dict[str, list[int]] = field(default_factory=dict)
    counted_in_defaults: dict[str, list[int]] = field(default_factory=dict)
    declared: dict[str, str] = field(default_factory=dict)
    excused: dict[str, list[int]] = field(default_factory=dict)
    unknown: dict[str, str] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)
    sources: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.uncounted and not self.counted_in_defaults and not self.unknown

    def report(self) -> str:
        """The findings, each line with its source text, then the declared lines with their reasons."""
        out = [f"{self.column}: {'the glue count is exact' if self.ok else 'the glue count is NOT exact'}"]
        for title, finding in (("run only in contract mode, not counted as glue", self.uncounted),
                               ("counted as glue, run in defaults mode", self.counted_in_defaults)):  # fmt: skip
            out.append(f"  {title}: {_lines(finding)}")
            for label, numbers in finding.items():
                out += [f"    {label}:{n}: {self.sources[label][n - 1].strip()}" for n in numbers]
        for key, why in self.unknown.items():
            out.append(f"  {DECLARATION} names no function of the column: {key}: {why}")
        if self.excused:
            out.append(f"  run only in contract mode, in code the column declares defaults never reaches: {_lines(self.excused)}")
        reasons: dict[str, list[str]] = {}  # one reason given for several functions is printed once
        for key in self.excused:
            reasons.setdefault(self.declared[key], []).append(key)
        for reason, keys in reasons.items():
            out.append(f"    {', '.join(keys)}: {reason}")
            for key in keys:
                label = key.partition(":")[0]
                out += [f"      {label}:{n}: {self.sources[label][n - 1].strip()}" for n in self.excused[key]]
        unused = [key for key in self.declared if key not in self.excused and key not in self.unknown]
        if unused:
            out.append(f"  note: declared, yet no line of it ran only in contract mode in this run: {', '.join(unused)}")
        for mode, keys in self.errors.items():
            out.append(f"  note: in {mode} mode {len(keys)} scenario run(s) ended a step in an error: {', '.join(keys)}")
        return "\n".join(out)


def _lines(finding: Mapping[str, list[int]]) -> str:
    total = sum(map(len, finding.values()))
    return f"{total} line{'s' * (total != 1)}"


def declared_function(adapter_dir: Path, key: str) -> tuple[Path, set[int]]:
    """The file and the lines of the function a declaration names: ``<file in the column's folder>:<qualified name>``
    (``tools.py:fixture_tools.get_weather``, ``session.py:AgentSession.position``). ValueError when there is none."""
    adapter_dir = adapter_dir.resolve()
    file, _, qualname = key.partition(":")
    path = (adapter_dir / file).resolve()
    if not file or not qualname or not path.is_relative_to(adapter_dir) or path.suffix != ".py" or not path.is_file():
        raise ValueError("not '<file in the column's folder>:<function>'")
    node: ast.AST = ast.parse(path.read_text(encoding="utf-8"))
    for name in qualname.split("."):
        found = [d for d in _definitions(node) if d.name == name]
        if len(found) != 1:
            raise ValueError(f"{file} defines {'no' if not found else 'more than one'} {name!r} there")
        node = found[0]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ValueError(f"{qualname} is a class, not a function")
    return path, set(range(node.lineno, (node.end_lineno or node.lineno) + 1))


def _definitions(node: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    """The functions and classes defined in ``node``'s own body (under its ``if``s and ``try``s, not in nested ones)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield child
        else:
            yield from _definitions(child)


@dataclass
class Traced:
    """One mode's traced run: the lines run per file, the scenario runs that ended a step in an error, and the
    column's ``defaults_never_reaches``."""

    lines: Lines
    errors: list[str]
    declared: dict[str, str]


def traced_mode(
    column: Column,
    mode: str,
    scenarios_dir: Path,
    scratch: Path,
    *,
    python: Path | None = None,
    extra_sys_path: Sequence[Path] = (),
    scenario_timeout_s: float = TRACE_TIMEOUT_S,
) -> Traced:
    """Run every scenario of ``column`` once in ``mode`` with the steps' line tracing: the lines run per file under
    the column's ``adapters/`` folder, the scenario runs that ended a step in an error, and the declaration."""
    scratch.mkdir(parents=True, exist_ok=True)
    (scratch / "home").mkdir(exist_ok=True)
    traced, declared, out = scratch / "lines.tsv", scratch / "declared.json", scratch / "observations.json"
    with LedgerServer(scratch / "ledger.sqlite") as ledger:
        command = [
            str(python or sys.executable), "-I", "-c", BOOTSTRAP, ":".join(str(p) for p in [ROOT, *extra_sys_path]),
            str(traced), str(column.adapter_dir.resolve().parent), str(declared), column.entry,
            "--column", column.entry, "--mode", mode, "--scenarios", str(scenarios_dir.resolve()), "--scratch", str(scratch),
            "--out", str(out), "--scenario-timeout", str(scenario_timeout_s), "--ledger-fd", str(ledger.column_fd),
        ]  # fmt: skip
        done = subprocess.run(command, env=clean_environment(scratch / "home"), cwd=scratch, capture_output=True, text=True, pass_fds=(ledger.column_fd,))
    if done.returncode != 0 or not out.exists():
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise RuntimeError(f"{column.name} in {mode} mode: the column process exited with {done.returncode}:\n{tail}")
    records = json.loads(out.read_text(encoding="utf-8"))["modes"].get(mode)
    if records is None:
        raise RuntimeError(f"{column.name} has no {mode} mode: the check compares defaults with contract")
    errors = sorted(key for key, record in records.items() if ended_in_error(record))
    lines = read_lines(traced)
    return Traced(lines, errors, json.loads(declared.read_text(encoding="utf-8")))


def compare(adapter_dir: Path, defaults: Lines, contract: Lines, declared: Mapping[str, str] | None = None, column: str | None = None) -> Coverage:
    """The findings for the column in ``adapter_dir`` (named ``column``: default, the folder's name; a column at an extra
    pin shares its folder), from the lines each mode ran and its ``defaults_never_reaches``."""
    adapter_dir = adapter_dir.resolve()
    root = adapter_dir.parent
    counted = counted_lines(glue_parts(adapter_dir))
    coverage = Coverage(column or adapter_dir.name, declared=dict(declared or {}))
    functions: dict[str, tuple[Path, set[int]]] = {}
    for key in coverage.declared:
        try:
            functions[key] = declared_function(adapter_dir, key)
        except (ValueError, SyntaxError) as exc:
            coverage.unknown[key] = str(exc)
    for path in sorted(set(defaults) | set(contract)):
        if path.parent == root:
            label = f"../{path.name}"
        elif path.is_relative_to(adapter_dir):
            label = path.relative_to(adapter_dir).as_posix()
        else:  # another column's folder: nothing of it is this column's count
            continue
        glue, in_defaults = counted.get(path, set()), defaults.get(path, set())
        uncounted = contract.get(path, set()) - in_defaults - glue
        for key, (declared_path, lines) in functions.items():
            if declared_path == path and (excused := uncounted & lines):
                coverage.excused[key] = sorted(excused)
                uncounted -= excused
        run_in_defaults = sorted(in_defaults & glue)
        if uncounted:
            coverage.uncounted[label] = sorted(uncounted)
        if run_in_defaults:
            coverage.counted_in_defaults[label] = run_in_defaults
        if uncounted or run_in_defaults or any(functions[k][0] == path for k in coverage.excused):
            coverage.sources[label] = path.read_text(encoding="utf-8").splitlines()
    return coverage


def check_column(
    column: Column,
    scenarios_dir: Path,
    scratch: Path,
    *,
    python: Path | None = None,
    extra_sys_path: Sequence[Path] = (),
    scenario_timeout_s: float = TRACE_TIMEOUT_S,
    log: Callable[[str], None] = print,
) -> Coverage:
    """Trace both modes of ``column`` over the scenarios in ``scenarios_dir`` and compare them with its glue count.
    RuntimeError when a file the comparison reads changed while the modes were traced (its line numbers moved)."""
    before = sources(column.adapter_dir)
    runs: dict[str, Traced] = {}
    for mode in GLUE_MODES:
        log(f"[{column.name}] tracing {mode} mode")
        runs[mode] = traced_mode(column, mode, scenarios_dir, scratch / mode, python=python, extra_sys_path=extra_sys_path, scenario_timeout_s=scenario_timeout_s)
    after = sources(column.adapter_dir)
    changed = sorted(str(p) for p in set(before) | set(after) if before.get(p) != after.get(p))
    if changed:
        raise RuntimeError(f"changed while the column was traced (run the check again): {', '.join(changed)}")
    coverage = compare(column.adapter_dir, runs["defaults"].lines, runs["contract"].lines, runs["contract"].declared, column.name)
    coverage.errors = {mode: run.errors for mode, run in runs.items() if run.errors}
    return coverage


def ended_in_error(record: Mapping[str, Any]) -> bool:
    """Whether a column process's raw record of one run ended a step in an error, or failed outside its steps
    (its coverage is partial)."""
    return bool(record.get("error")) or any(step["error"] for step in record["steps"])


def coverage_of_traces(column: Column, traces: Path, errors: Mapping[str, list[str]]) -> Coverage:
    """The findings from the lines a column process recorded in ``traces`` while it played every scenario's second run
    of ``--check`` (``column_main --trace-lines``: ``<mode>.tsv`` per mode and ``declared.json``), and the second runs
    that ended a step in an error per mode (their coverage is partial)."""
    lines = {mode: read_lines(traces / f"{mode}.tsv") for mode in GLUE_MODES}
    declared = json.loads(read_column_file(traces / "declared.json", traces.parent))
    coverage = compare(column.adapter_dir, lines["defaults"], lines["contract"], declared, column.name)
    coverage.errors = {mode: sorted(keys) for mode, keys in errors.items() if keys}
    return coverage


def sources(adapter_dir: Path) -> dict[Path, bytes]:
    """The text of every file the comparison reads: the column's folder and the shared ``adapters/*.py``."""
    adapter_dir = adapter_dir.resolve()
    return {p: p.read_bytes() for p in [*adapter_dir.rglob("*.py"), *adapter_dir.parent.glob("*.py")]}


def read_lines(out: Path) -> dict[Path, set[int]]:
    """What a ``harness.column_side.trace.lines.LineRecorder`` recorded into ``out``: the lines run, per file (resolved)."""
    runs: dict[Path, set[int]] = {}
    resolved: dict[str, Path] = {}  # two names of one file (a link, a relative path) are one file's lines
    if out.exists():
        for entry in read_column_file(out, out.parent.parent).splitlines():
            number, _, name = entry.partition("\t")
            path = resolved.get(name) or resolved.setdefault(name, Path(name).resolve())
            runs.setdefault(path, set()).add(int(number))
    return runs
