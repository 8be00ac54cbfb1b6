"""Every line the default comparison prints fits 100 columns (``publish.console``): the progress lines, the table, the
summaries, the cost table with the slowest runs, where the findings are and the loud lines of a run that failed, fed
the committed evidence and names longer than any committed one."""

from __future__ import annotations

import io
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from harness.columns import ROOT, known_columns
from harness.runner_side.publish import console
from harness.runner_side.run.runner import ColumnResult

LONG = "a_scenario_key_longer_than_any_committed_one_" * 4 + "@write_landed+siblings_first"


def _evidence() -> dict[str, dict[str, Any]]:
    return {name: json.loads((ROOT / "evidence" / f"{name}.json").read_text(encoding="utf-8")) for name in known_columns()}


def _results() -> dict[str, ColumnResult]:
    """A measured column whose slowest runs have long keys, and one not measured for a long reason."""
    columns = known_columns()
    measured = ColumnResult(columns["langgraph"], "measured", timings={
        "total_s": 80.0, "finished_at_s": 80.0, "import_s": 0.1, "scenarios_s": {f"defaults/{LONG}{i}": 9.0 + i for i in range(5)},
    })  # fmt: skip
    reason = "the column process left no readable observations: " + "JSONDecodeError at line 1 column 2 " * 8
    return {"langgraph": measured, "agentscope": ColumnResult(columns["agentscope"], "not-measured", reason=reason)}


def _too_wide(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line) > console.WIDTH]


def test_every_line_of_a_default_run_fits_the_width(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    documents = _evidence()
    progress = console.Progress("openai_agents", 3, time.perf_counter())
    progress.line("plan 3")
    progress.line(f"defaults/{LONG}")
    progress.log(f"building the environment in {ROOT}/.cache/envs/{'x' * 150}")
    console.table(documents, [f"langgraph/defaults/{LONG}/observables.model"])
    failures = console.closing(_results(), documents, 120.0, ROOT / "evidence", check=False, allow_not_measured=False)
    console.contradicted([f"langgraph/defaults/{LONG}: 'c1 ran twice' but the record says once " * 3])
    assert console.failed(failures + [f"{LONG} " * 3]) == 1
    out, err = capsys.readouterr()
    assert "slowest scenario runs:" in out and "langgraph/defaults/" in out and "!!! agentscope was NOT MEASURED" in err
    assert _too_wide(out) == [] and _too_wide(err) == []


def test_a_long_line_is_wrapped_whole_not_cut() -> None:
    line = f"[langgraph] 3/3 defaults/{LONG} (12 s)"
    text = console.wrapped(line)
    assert len(text.splitlines()) > 1 and _too_wide(text) == []
    assert "".join(text.split()) == "".join(line.split())  # every character still there, in order


def test_paths_under_the_repository_print_relative(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    console.say(f"kept in {ROOT}/runs/x")
    assert capsys.readouterr().out == "kept in runs/x\n"
    assert console.where(ROOT / "evidence", check=False)[0] == "findings (what each framework hides): evidence/FINDINGS.md"
    assert console.shown(Path("/")) == "/"


def test_lines_said_from_many_threads_never_run_into_one_another() -> None:
    """Every column's thread reports its progress: each line is written whole, with its newline, even on a stream that
    lets another thread run between any two writes (``print`` writes a line and its newline apart)."""

    class Yielding(io.StringIO):
        def write(self, text: str) -> int:
            written = super().write(text)
            time.sleep(0.001)  # another thread gets the interpreter here
            return written

    out = Yielding()
    lines = [f"[column{n}] {i}/20 defaults/scenario_{i} (1 s)" for n in range(4) for i in range(20)]
    threads = [threading.Thread(target=lambda n=n: [console.say(line, to=out) for line in lines[n * 20:(n + 1) * 20]]) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(out.getvalue().splitlines()) == sorted(lines)


def test_the_plans_of_a_columns_two_processes_add_up(capsys: pytest.CaptureFixture[str]) -> None:
    """A third-party column runs its wire mode in a process of its own (``runner.processes``): each process sends its
    plan, and the progress counts against both."""
    progress = console.Progress("langgraph", 5, time.perf_counter())
    progress.line("plan 3")
    progress.line("plan 2")
    for n in range(5):
        progress.line(f"defaults/s{n}")
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in out] == ["1/5", "2/5", "3/5", "4/5", "5/5"]
