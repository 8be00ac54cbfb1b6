"""The glue coverage check on a synthetic framework column in a temporary ``adapters``-like folder: a
``FrameworkColumn`` whose session has a contract-only branch, counted (the check passes) or not (it
fails), one whose counted glue also runs in defaults (it fails), one whose column process explains a
contract run after the step (not traced: it passes), and one that declares its branch a path defaults
never reaches (listed apart, with the reason). Real column processes, real tracing; the comparison and
the declarations also on hand-made line sets."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from harness.columns import ROOT, Column
from harness.runner_side.run.glue_coverage import check_column, compare
from harness.runner_side.run.runner import run_column

COLUMN = '''\
"""A test-only framework column: every delivery completes at once."""

from adapters.column import FrameworkColumn, SessionContext
from harness.column_side.protocol import StepOutcome

from .glue import note, tag


class Session:
    """Completes every run; in contract mode it also notes the delivery."""

    def __init__(self, context: SessionContext) -> None:
        self.context = context

    def deliver(self, text: str) -> StepOutcome:
        contract = self.context.contract
        {tagging}
        if contract is not None:
{branch}
        return self.outcome()

    def outcome(self) -> StepOutcome:
        return StepOutcome("completed", "completed")

    def close(self) -> None:
        pass


class SynthColumn(FrameworkColumn):
    """The synthetic column."""

    name = "synth"
{extra}

    def open_session(self, context: SessionContext) -> Session:
        return Session(context)
'''
GLUE = '''\
"""The synthetic column's glue."""


def note(contract, what):
    """Contract-only: a trace event."""
    contract.emit({"kind": what})


def tag(trace):
    trace.emit({"kind": "tagged"})
'''
COUNTED = "            # contract glue: start\n            note(contract, 'noted')\n            # contract glue: end"
UNCOUNTED = "            contract.emit({'kind': 'noted'})  # contract-only, yet outside the markers and the glue files"


EXPLAINED = """\
    def detail(self, run, mode):
        if mode == "contract":  # run in the column process, after the steps: reporting, not glue
            return {"explanations": {"noted": self.explain(run)}}
        return {}

    def explain(self, run):
        return f"the contract noted {len(run.steps)} step(s)"
"""
DECLARED = """\
    defaults_never_reaches = {"column.py:Session.deliver": "defaults takes another path here"}
"""


def _column(root: Path, branch: str, tagging: str = "pass", extra: str = "") -> Column:
    """The synthetic column under ``root/synthcols/synth`` (its shared folder: ``root/synthcols``)."""
    folder = root / "synthcols" / "synth"
    folder.mkdir(parents=True)
    (root / "synthcols" / "__init__.py").write_text("", encoding="utf-8")
    (folder / "__init__.py").write_text("", encoding="utf-8")
    (folder / "glue.py").write_text(GLUE, encoding="utf-8")
    (folder / "column.py").write_text(COLUMN.format(branch=branch, tagging=tagging, extra=extra), encoding="utf-8")
    return Column("synth", "synthcols.synth.column:SynthColumn", "project", "test only", lock_dir=folder)


def _scenarios(root: Path) -> Path:
    scenarios = root / "scenarios"
    scenarios.mkdir()
    shutil.copy(ROOT / "scenarios" / "basic_react_loop.json", scenarios)
    return scenarios


def _check(tmp_path: Path, branch: str, tagging: str = "pass", extra: str = ""):
    column = _column(tmp_path / "src", branch, tagging, extra)
    coverage = check_column(column, _scenarios(tmp_path), tmp_path / "scratch", extra_sys_path=[tmp_path / "src"], log=lambda _: None)
    assert coverage.errors == {}, coverage.report()
    return coverage


def _line(source: str, text: str) -> int:
    lines = source.splitlines()
    return next(n for n, line in enumerate(lines, start=1) if text in line)


@pytest.mark.slow  # traces a column's both modes in worker processes
def test_a_contract_only_branch_inside_the_markers_passes(tmp_path: Path) -> None:
    coverage = _check(tmp_path, COUNTED)
    assert coverage.ok, coverage.report()


@pytest.mark.slow  # traces a column's both modes in worker processes
def test_a_contract_only_branch_outside_what_is_counted_fails(tmp_path: Path) -> None:
    coverage = _check(tmp_path, UNCOUNTED)
    line = _line(COLUMN.format(branch=UNCOUNTED, tagging="pass", extra=""), "contract.emit(")
    assert coverage.uncounted == {"column.py": [line]}, coverage.report()
    assert coverage.counted_in_defaults == {}
    assert "contract-only, yet outside the markers" in coverage.report()


@pytest.mark.slow  # traces a column's both modes in worker processes
def test_counted_glue_that_defaults_runs_fails(tmp_path: Path) -> None:
    coverage = _check(tmp_path, COUNTED, tagging="tag(self.context.trace)")
    assert coverage.counted_in_defaults == {"glue.py": [_line(GLUE, '"tagged"')]}, coverage.report()
    assert coverage.uncounted == {}


@pytest.mark.slow  # traces a column's both modes in worker processes
def test_what_the_column_process_computes_after_the_steps_is_not_traced(tmp_path: Path) -> None:
    coverage = _check(tmp_path, COUNTED, extra=EXPLAINED)
    assert coverage.ok, coverage.report()


@pytest.mark.slow  # traces a column's both modes in worker processes
def test_a_declared_path_defaults_never_reaches_is_listed_apart(tmp_path: Path) -> None:
    coverage = _check(tmp_path, UNCOUNTED, extra=DECLARED)
    line = _line(COLUMN.format(branch=UNCOUNTED, tagging="pass", extra=DECLARED), "contract.emit(")
    assert coverage.ok and coverage.uncounted == {}, coverage.report()
    assert coverage.excused == {"column.py:Session.deliver": [line]}
    assert "defaults takes another path here" in coverage.report()


@pytest.mark.slow  # runs the column process twice over
def test_the_second_runs_of_check_give_the_findings_of_the_check_alone(tmp_path: Path) -> None:
    """``--check`` traces its second runs instead of running every scenario a third time: the same findings."""
    column = _column(tmp_path / "src", UNCOUNTED, extra=EXPLAINED)
    scenarios, path = _scenarios(tmp_path), [tmp_path / "src"]
    alone = check_column(column, scenarios, tmp_path / "alone", extra_sys_path=path, log=lambda _: None)
    modes = ["defaults", "contract"]
    checked = run_column(column, modes, scenarios, tmp_path / "check", scenario_count=1, extra_sys_path=path, twice=True, trace_glue=True, log=lambda _: None)
    assert checked.status == "measured", checked.reason
    assert checked.glue_coverage is not None and checked.glue_coverage_problem is None
    found = checked.glue_coverage
    assert (found.uncounted, found.counted_in_defaults, found.excused, found.errors) == (alone.uncounted, alone.counted_in_defaults, alone.excused, alone.errors)
    assert found.uncounted and not found.ok  # the uncounted branch is found, so the comparison above compares something
    plain = run_column(column, modes, scenarios, tmp_path / "plain", scenario_count=1, extra_sys_path=path, twice=True, log=lambda _: None)
    assert plain.glue_coverage is None and not (tmp_path / "plain" / "synth" / "traces").exists()  # only when asked


def test_the_comparison_reads_only_the_columns_files_and_the_shared_ones(tmp_path: Path) -> None:
    root = tmp_path / "adapters"
    (root / "col").mkdir(parents=True)
    (root / "other").mkdir()
    (root / "col" / "session.py").write_text("def f(c):\n    if c:\n        g()\n    return 1\n", encoding="utf-8")
    (root / "other" / "session.py").write_text("def f(c):\n    if c:\n        g()\n", encoding="utf-8")
    (root / "column.py").write_text(
        textwrap.dedent("""\
            def play(contract):
                if contract is not None:
                    # contract glue: start
                    check(contract)
                    # contract glue: end
                finish()
            """),
        encoding="utf-8",
    )
    (root / "col" / "adapter.py").write_text("from adapters.column import play\n", encoding="utf-8")
    defaults = {root / "col" / "session.py": {2, 4}, root / "other" / "session.py": {2}, root / "column.py": {2, 6}}
    contract = {root / "col" / "session.py": {2, 3, 4}, root / "other" / "session.py": {2, 3}, root / "column.py": {2, 4, 6}}
    coverage = compare(root / "col", defaults, contract)
    assert coverage.uncounted == {"session.py": [3]} and coverage.counted_in_defaults == {}
    coverage = compare(root / "col", {**defaults, root / "column.py": {2, 4, 6}}, contract)
    assert coverage.counted_in_defaults == {"../column.py": [4]}


def test_a_declaration_excuses_only_its_functions_lines_and_must_name_one(tmp_path: Path) -> None:
    root = tmp_path / "adapters"
    (root / "col").mkdir(parents=True)
    tools = root / "col" / "tools.py"
    tools.write_text(
        textwrap.dedent("""\
            def fixture_tools(world):
                def read(city):
                    return world.call(city)

                def write(key):
                    return world.call(key)

                return [read, write]
            """),
        encoding="utf-8",
    )
    defaults, contract = {tools: {2, 5, 8}}, {tools: {2, 3, 5, 6, 8}}
    coverage = compare(root / "col", defaults, contract, {"tools.py:fixture_tools.read": "never approved in defaults"})
    assert coverage.excused == {"tools.py:fixture_tools.read": [3]} and coverage.uncounted == {"tools.py": [6]}
    assert not coverage.ok and "never approved in defaults" in coverage.report()
    declared = {"tools.py:fixture_tools.read": "a", "tools.py:fixture_tools.write": "b", "tools.py:fixture_tools.gone": "c", "../x.py:f": "d"}
    coverage = compare(root / "col", defaults, contract, declared)
    assert coverage.uncounted == {} and set(coverage.unknown) == {"tools.py:fixture_tools.gone", "../x.py:f"}
    assert not coverage.ok
    coverage = compare(root / "col", defaults, contract | {tools: {2, 3, 5, 8}}, {"tools.py:fixture_tools.read": "a", "tools.py:fixture_tools.write": "b"})
    assert coverage.ok and "declared, yet no line of it ran only in contract mode in this run: tools.py:fixture_tools.write" in coverage.report()


def test_only_workers_forked_while_recording_trace_their_lines(tmp_path: Path) -> None:
    """The first runs of ``--check`` are not slowed down by tracing: a worker forked while the recorder is off records nothing."""
    import importlib.util
    import os
    import sys

    from harness.column_side.trace.lines import LineRecorder
    from harness.runner_side.run.glue_coverage import read_lines

    folder = tmp_path / "traced"
    folder.mkdir()
    (folder / "work.py").write_text("def work():\n    return 1\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("traced_work", folder / "work.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    recorder, out = LineRecorder(folder), tmp_path / "lines.tsv"

    def worker() -> None:
        pid = os.fork()
        if pid == 0:
            module.work()
            os._exit(0)
        os.waitpid(pid, 0)

    worker()  # off: nothing recorded
    assert not out.exists()
    recorder.record_into(out)
    worker()
    recorder.record_into(None)
    assert read_lines(out) == {(folder / "work.py").resolve(): {2}}
    assert sys.gettrace() is None  # the process that owns the recorder is never traced itself
