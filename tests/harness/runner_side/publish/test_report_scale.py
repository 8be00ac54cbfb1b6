"""The report's size (``harness.runner_side.publish.report.budget``): cut along its own markup, each part of the page keeps
its budget, on the committed evidence and on a 1,000-turn flaky-tool run of the engine, whose
report stays under 10 MB and is produced, run included, in under 500 MiB."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from harness import flaky_scenarios as flaky
from harness.columns import ROOT
from harness.runner_side.publish.report import budget
from harness.runner_side.publish.report.page import render_report, script_json
from harness.scenarios import SCENARIO_DIR, Scenario, load_scenarios

EVIDENCE = ROOT / "evidence"
SKIP = {"availability", "timings", "evidence.schema", "sweep"}
TURNS = 1000


def _documents(directory: Path) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.json")) if p.stem not in SKIP}


def _size(text: str) -> int:
    return len(text.encode())


def page_parts(page: str) -> Counter[tuple[str, ...]]:
    """The page's bytes by part, cut along its markup: ``("cell", scenario, column)``, ``("scenario", id)``,
    ``("loop", id)``, ``("scorecard", row, column)``, ``("scorecard column", column)``, ``("pin change", rule, framework,
    subject, mode)``, and ``("rest",)`` for what is left. Escaped text holds no ``<``, so a ``</td>`` or ``</section>`` in the page is always the page's own."""
    parts: Counter[tuple[str, ...]] = Counter()
    card = re.search(r"<section id='scorecard'>.*?</section>", page, re.S)
    assert card is not None
    for td in re.finditer(r"<td class='mark-[^']*' data-row='([^']+)' data-column='([^']+)'.*?</td>", card.group(0), re.S):
        parts[("scorecard", td.group(1), td.group(2))] += _size(td.group(0))
    for th in re.finditer(r"<(th|td class='glue') data-column='([^']+)'>.*?</t[hd]>", card.group(0), re.S):
        parts[("scorecard column", th.group(2))] += _size(th.group(0))
    for section in re.finditer(r"<section class='scenario' id='scenario-([^']+)'.*?</section>", page, re.S):
        sid, own = section.group(1), _size(section.group(0))
        for td in re.finditer(r"<t[dh][^>]*? data-column='([^']+)'.*?</t[dh]>(?=<t[dh]|</tr>)", section.group(0), re.S):
            parts[("cell", sid, td.group(1))] += _size(td.group(0))
            own -= _size(td.group(0))
        parts[("scenario", sid)] += own + _size(f"<li><a href='#scenario-{sid}'>{sid}</a></li>")
    pins = re.search(r"<section id='pins'>.*?</section>", page, re.S)
    assert pins is not None
    for change in re.finditer(r"<div class='pin-change' data-pin-rule='([^']+)' data-framework='([^']+)' data-subject='([^']+)' data-mode='([^']*)'.*?</div>",
                              pins.group(0), re.S):
        parts[("pin change", *change.groups())] += _size(change.group(0))
    payload = re.search(r"<script type='application/json' id='loop-data'>(.*?)</script>", page, re.S)
    if payload is not None:
        for sid, run in json.loads(payload.group(1))["runs"].items():
            option = re.search(r"<option value='\d+' label='\d+ %'></option>", page)  # one per run, the same length
            assert option is not None
            parts[("loop", sid)] += _size(script_json(run)) + _size(option.group(0)) + _size(f"<div class='loop-frameworks' data-scenario='{sid}'></div>")
    parts[("rest",)] = _size(page) - sum(parts.values())
    return parts


def over_budget(page: str, documents: dict[str, dict[str, Any]], scenarios: dict[str, Scenario]) -> list[str]:
    """Every part of the page beyond its budget, with its size and budget (empty when all keep theirs)."""
    over = []
    for part, size in page_parts(page).items():
        kind = part[0]
        if kind == "cell":
            name, mode = part[2].split("/")
            mode, _, schedule = mode.partition("@")
            allowed = budget.cell_budget(documents[name]["modes"][mode]["scenarios"][part[1] + (f"@{schedule}" if schedule else "")])
        elif kind == "scenario":
            allowed = budget.scenario_budget(scenarios[part[1]])
        elif kind == "loop":
            allowed = budget.loop_budget(documents["handwritten"]["modes"]["contract"]["scenarios"][part[1]])
        elif kind == "scorecard":
            count = re.search(rf"data-row='{re.escape(part[1])}' data-column='{re.escape(part[2])}' data-mark='[^']*' data-count='(\d+)'", page)
            assert count is not None, part
            allowed = budget.scorecard_cell_budget(int(count.group(1)))
        elif kind == "scorecard column":
            allowed = budget.SCORECARD_COLUMN
        elif kind == "pin change":
            listed = re.search(rf"data-pin-rule='{re.escape(part[1])}' data-framework='{re.escape(part[2])}' data-subject='{re.escape(part[3])}' "
                               rf"data-mode='{re.escape(part[4])}' data-scenarios='(\d+)'", page)
            assert listed is not None, part
            allowed = budget.pin_change_budget(int(listed.group(1)))
        else:
            allowed = budget.FIXED
        if size > allowed:
            over.append(f"{part}: {size} bytes, budget {allowed}")
    return over


def test_every_part_of_the_committed_report_keeps_its_budget() -> None:
    """The report the committed evidence generates, cut along its markup: a cell per (scenario, column, mode) record, a
    loop part per flaky-tool scenario, and each part, the rest included, keeps its budget."""
    documents, scenarios = _documents(EVIDENCE), {s.id: s for s in load_scenarios(SCENARIO_DIR)}
    page = render_report(documents, scenarios, sweep=json.loads((EVIDENCE / "sweep.json").read_text(encoding="utf-8")))
    parts = page_parts(page)
    records = sum(len(b["scenarios"]) for d in documents.values() for b in d["modes"].values())
    assert sum(1 for p in parts if p[0] == "cell") == records
    assert sum(1 for p in parts if p[0] == "loop") == sum(1 for s in scenarios.values() if s.failure_rate is not None) > 0
    assert parts[("rest",)] > 0  # the page's own frame: every byte not in another part
    assert over_budget(page, documents, scenarios) == []


def test_a_part_beyond_its_budget_is_found() -> None:
    """The check can fail: a reason of 100,000 ``<`` takes 100,000 bytes of its record and 400,000 of the page (each
    shown as ``&lt;``), beyond the cell's budget of twice its record; no other part moves."""
    documents, scenarios = _documents(EVIDENCE), {s.id: s for s in load_scenarios(SCENARIO_DIR)}
    record = documents["langgraph"]["modes"]["defaults"]["scenarios"]["basic_react_loop"]
    record["reasons"] = [*record.get("reasons", ()), {"rule": "executed_again", "text": "<" * 100_000, "claims": []}]
    over = over_budget(render_report(documents, scenarios), documents, scenarios)
    assert len(over) == 1 and over[0].startswith("('cell', 'basic_react_loop', 'langgraph/defaults')")


def long_flaky_scenario(directory: Path, turns: int) -> Path:
    """A flaky-tool scenario of ``turns`` calls made as ``scripts/make_flaky_scenarios.py`` makes the committed ones
    (``harness.flaky_scenarios``: its schedule drawn at 50 % from the same kind of seed, its expected block from the schedule), one turn per call."""
    schedule = flaky.draw_schedule(50, turns)
    scenario = flaky.scenario(50) | {
        "id": "flaky_tool_long",
        "description": f"{turns} calls of a notes tool that fails half its attempts.",
        "covers": flaky.covers(schedule),
        "session_id": "sess-flaky-long",
        "max_steps": turns + 1,
        "model_script": [{"tool_calls": [{"id": f"c{i}", "name": flaky.TOOL, "arguments": {"key": f"note-{i}", "text": f"follow-up {i}"}}]}
                         for i in range(1, turns + 1)] + [{"text": "Done."}],  # fmt: skip
        "faults": [{"point": "tool.raise_before_effect", "call_id": f"c{i}"} for i, k in enumerate(schedule, start=1) for _ in range(k)],
        "expected": flaky.expected(schedule),
    }
    path = directory / "flaky_tool_long.json"
    path.write_text(json.dumps(scenario, indent=2), encoding="utf-8")
    return path


MEASURED = textwrap.dedent("""
    import resource, subprocess, sys
    done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
    print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    sys.stderr.write(done.stdout[-2000:] + done.stderr[-2000:])
""")
"""Runs its arguments as a child and prints the exit status and the child's peak resident size in KiB: measured in a
fresh interpreter, because a forked child would start with (and report) the parent's peak."""


@pytest.mark.slow
def test_a_1000_turn_flaky_run_makes_a_report_under_10_mb_in_under_500_mib(tmp_path: Path) -> None:
    """The engine alone plays a 1,000-turn flaky-tool scenario through the comparison's CLI: its report is at most
    10 MB, every part keeps its budget, and the run (the CLI, the engine's process and the report) peaks under
    500 MiB. The loop's replay grew with the square of the turns before: a 263 MB page and a 1.5 GiB runner."""
    scenarios_dir, output = tmp_path / "scenarios", tmp_path / "out"
    scenarios_dir.mkdir()
    long_flaky_scenario(scenarios_dir, TURNS)
    command = [sys.executable, str(ROOT / "scripts" / "run_framework_comparison.py"), "--framework", "handwritten", "--mode", "contract",
               "--scenarios", str(scenarios_dir), "--output", str(output)]  # fmt: skip
    done = subprocess.run([sys.executable, "-c", MEASURED, *command], capture_output=True, text=True, cwd=ROOT, timeout=300)
    status, peak_kib = map(int, done.stdout.split())
    documents = _documents(output)
    record = documents["handwritten"]["modes"]["contract"]["scenarios"]["flaky_tool_long"]
    assert status == 0 and record["equal"] is True and record["steps"][-1]["status"] == "completed", done.stderr
    assert sum(e["kind"] == "model_turn" for e in record["trace"]) == TURNS + 1
    page = (output / "report.html").read_text(encoding="utf-8")
    assert len(page.encode()) <= 10_000_000
    assert peak_kib <= 500 * 1024, f"peak resident size {peak_kib} KiB"
    assert over_budget(page, documents, {s.id: s for s in load_scenarios(scenarios_dir)}) == []
