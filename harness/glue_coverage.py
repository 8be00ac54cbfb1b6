"""The glue coverage check: the glue count (``harness.glue``) against the lines each mode actually runs.

The column's scenarios run once per mode, each mode in its own column process (``harness.column_main``
in the column's environment, as the runner starts it) with line tracing (``harness.line_trace``) of the
functions under ``adapters/``. Two findings, each a list of lines, both empty when the count is exact:

- ``uncounted``: lines ``contract`` mode ran and ``defaults`` never did that are not counted as glue
  (a contract-only branch outside ``glue*.py``, the markers and the counted blocks);
- ``counted_in_defaults``: counted glue lines that ``defaults`` ran.

Only the files whose lines a column's count can name are checked: the column's own folder and the
shared ``adapters/*.py`` (the base ``column.py``, ``glue_blocks.py``, ...). Lines are physical lines:
a contract-only part of a line that both modes run (``x if contract else y``) is not seen. A line that
only ``contract`` reaches because the scenario took another path in ``defaults`` (the framework
stopped earlier, say) is reported too: it is the reader's to judge, with the source line beside it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .columns import ROOT, Column
from .glue import counted_lines, glue_parts
from .ledger import LedgerServer
from .line_trace import read_lines
from .sandbox import clean_environment

MODES = ("defaults", "contract")
TRACE_TIMEOUT_S = 300.0  # per scenario: tracing slows a framework's own code down several times
BOOTSTRAP = (
    "import sys; sys.path[:0] = sys.argv[1].split(':'); "
    "from harness.line_trace import install; install(sys.argv[2], sys.argv[3]); "
    "from harness.column_main import main; sys.exit(main(sys.argv[4:]))"
)
Lines = dict[Path, set[int]]


@dataclass
class Coverage:
    """The check's result for one column: the two findings (label -> line numbers), and the scenarios
    whose run ended a step in an error in some mode (their coverage is partial)."""

    column: str
    uncounted: dict[str, list[int]] = field(default_factory=dict)
    counted_in_defaults: dict[str, list[int]] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)
    sources: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.uncounted and not self.counted_in_defaults

    def report(self) -> str:
        """The findings, each line with its source text."""
        out = [f"{self.column}: {'the glue count is exact' if self.ok else 'the glue count is NOT exact'}"]
        for title, finding in (("run only in contract mode, not counted as glue", self.uncounted),
                               ("counted as glue, run in defaults mode", self.counted_in_defaults)):  # fmt: skip
            total = sum(map(len, finding.values()))
            out.append(f"  {title}: {total} line{'s' * (total != 1)}")
            for label, numbers in finding.items():
                out += [f"    {label}:{n}: {self.sources[label][n - 1].strip()}" for n in numbers]
        for mode, keys in self.errors.items():
            out.append(f"  note: in {mode} mode {len(keys)} scenario run(s) ended a step in an error: {', '.join(keys)}")
        return "\n".join(out)


def traced_mode(
    column: Column,
    mode: str,
    scenarios_dir: Path,
    scratch: Path,
    *,
    python: Path | None = None,
    extra_sys_path: Sequence[Path] = (),
    scenario_timeout_s: float = TRACE_TIMEOUT_S,
) -> tuple[Lines, list[str]]:
    """Run every scenario of ``column`` once in ``mode`` with line tracing; the lines run per file under the
    column's ``adapters/`` folder, and the scenario runs that ended a step in an error."""
    scratch.mkdir(parents=True, exist_ok=True)
    (scratch / "home").mkdir(exist_ok=True)
    traced, out = scratch / "lines.tsv", scratch / "observations.json"
    with LedgerServer(scratch / "ledger.sqlite") as ledger:
        command = [
            str(python or sys.executable), "-I", "-c", BOOTSTRAP, ":".join(str(p) for p in [ROOT, *extra_sys_path]),
            str(traced), str(column.adapter_dir.resolve().parent),
            "--column", column.entry, "--mode", mode, "--scenarios", str(scenarios_dir.resolve()), "--scratch", str(scratch),
            "--out", str(out), "--scenario-timeout", str(scenario_timeout_s), "--ledger", ledger.address,
        ]  # fmt: skip
        done = subprocess.run(command, env=clean_environment(scratch / "home"), cwd=scratch, capture_output=True, text=True)
    if done.returncode != 0 or not out.exists():
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise RuntimeError(f"{column.name} in {mode} mode: the column process exited with {done.returncode}:\n{tail}")
    records = json.loads(out.read_text(encoding="utf-8"))["modes"].get(mode)
    if records is None:
        raise RuntimeError(f"{column.name} has no {mode} mode: the check compares defaults with contract")
    errors = sorted(key for key, record in records.items() if any(step["error"] for step in record["steps"]))
    return {path.resolve(): lines for path, lines in read_lines(traced).items()}, errors


def compare(adapter_dir: Path, defaults: Lines, contract: Lines) -> Coverage:
    """The two findings for the column in ``adapter_dir``, from the lines each mode ran."""
    adapter_dir = adapter_dir.resolve()
    root = adapter_dir.parent
    counted = counted_lines(glue_parts(adapter_dir))
    coverage = Coverage(adapter_dir.name)
    for path in sorted(set(defaults) | set(contract)):
        if path.parent == root:
            label = f"../{path.name}"
        elif path.is_relative_to(adapter_dir):
            label = path.relative_to(adapter_dir).as_posix()
        else:  # another column's folder: nothing of it is this column's count
            continue
        glue, in_defaults = counted.get(path, set()), defaults.get(path, set())
        uncounted = sorted(contract.get(path, set()) - in_defaults - glue)
        run_in_defaults = sorted(in_defaults & glue)
        if uncounted:
            coverage.uncounted[label] = uncounted
        if run_in_defaults:
            coverage.counted_in_defaults[label] = run_in_defaults
        if uncounted or run_in_defaults:
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
    """Trace both modes of ``column`` over the scenarios in ``scenarios_dir`` and compare them with its glue count."""
    runs: dict[str, Lines] = {}
    errors: dict[str, list[str]] = {}
    for mode in MODES:
        log(f"[{column.name}] tracing {mode} mode")
        runs[mode], failed = traced_mode(column, mode, scenarios_dir, scratch / mode, python=python, extra_sys_path=extra_sys_path, scenario_timeout_s=scenario_timeout_s)
        if failed:
            errors[mode] = failed
    coverage = compare(column.adapter_dir, runs["defaults"], runs["contract"])
    coverage.errors = errors
    return coverage
