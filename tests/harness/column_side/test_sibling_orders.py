"""A kill inside one call of a batch, through the frameworks that run a batch concurrently, end to end.

No committed scenario has such a batch, so this test brings its own (``tests/scenarios/``, in the
documented format) and runs it through LangGraph, LangChain and the OpenAI Agents SDK twice: every
forced order must give the same record both times, and the orders must differ the way they say.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from harness.columns import ROOT

pytestmark = pytest.mark.slow  # runs the frameworks' columns end to end

SCENARIO = ROOT / "tests" / "scenarios" / "kill_in_parallel_batch.json"
COLUMNS = ("langgraph", "langchain", "openai_agents")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, dict]]:
    scenarios = tmp_path_factory.mktemp("scenarios")
    shutil.copy(SCENARIO, scenarios / SCENARIO.name)
    out = []
    for attempt in ("first", "second"):
        target = tmp_path_factory.mktemp(attempt)
        args = [a for c in COLUMNS for a in ("--framework", c)]
        done = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "run_framework_comparison.py"), *args, "--scenarios", str(scenarios), "--output", str(target)],
            capture_output=True, text=True, timeout=900, cwd=ROOT,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        out.append({c: json.loads((target / f"{c}.json").read_text(encoding="utf-8")) for c in COLUMNS})
    return out


def test_every_forced_order_gives_the_same_record_twice(runs: list[dict[str, dict]]) -> None:
    first, second = runs
    for column in COLUMNS:
        assert first[column]["modes"] == second[column]["modes"], column


SEQUENTIAL = {("openai_agents", "contract")}  # its glue runs a turn's calls one at a time: there is no order to force


@pytest.mark.parametrize("column", COLUMNS)
@pytest.mark.parametrize("mode", ["defaults", "contract"])
def test_the_sibling_ran_before_the_kill_only_when_the_order_says_so(runs: list[dict[str, dict]], column: str, mode: str) -> None:
    if (column, mode) in SEQUENTIAL:
        pytest.skip("calls run one at a time: test_a_sequential_batch_has_no_orders")
    records = runs[0][column]["modes"][mode]["scenarios"]
    at_kill = {}
    for key, record in records.items():
        order = key.split("@")[1].split("+")[-1]
        [interrupt] = record["columns"]["checkpoint_after_interrupt"]["framework"]["interrupts"]
        at_kill.setdefault(order, set()).add(interrupt["effects_before_resume"].get("c2", 0))
    assert at_kill == {"siblings_first": {1}, "kill_first": {0}}, at_kill


@pytest.mark.parametrize(("column", "mode"), sorted(SEQUENTIAL))
def test_a_sequential_batch_has_no_orders(runs: list[dict[str, dict]], column: str, mode: str) -> None:
    records = runs[0][column]["modes"][mode]["scenarios"]
    assert list(records) == [SCENARIO.stem], list(records)  # no sub-cases: nothing raced
    [interrupt] = records[SCENARIO.stem]["columns"]["checkpoint_after_interrupt"]["framework"]["interrupts"]
    assert interrupt["effects_before_resume"].get("c2", 0) == 0  # the sibling after the killed call never started
