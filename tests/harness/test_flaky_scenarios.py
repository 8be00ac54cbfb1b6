"""The flaky-tool scenarios are what scripts/make_flaky_scenarios.py writes, and their schedules are what they say."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from harness import flaky_scenarios
from harness.columns import ROOT
from harness.scenarios import load_expectations, load_scenarios

SCENARIOS = {s.id: s for s in load_scenarios()}
EXPECTED = load_expectations()


def test_the_committed_files_are_the_generators_bytes() -> None:
    for rate in flaky_scenarios.RATES:
        committed = flaky_scenarios.path(rate).read_bytes()
        assert committed == flaky_scenarios.render(rate).encode("utf-8"), f"{flaky_scenarios.path(rate).name}: run scripts/make_flaky_scenarios.py"


def test_the_rates_are_the_pages_and_every_flaky_file_is_one_of_them() -> None:
    assert flaky_scenarios.RATES == (0, 20, 50, 80)
    assert sorted(p.name for p in (ROOT / "scenarios").glob("flaky_tool_rate_*.json")) == sorted(flaky_scenarios.path(r).name for r in flaky_scenarios.RATES)


def test_the_engines_attempt_budget_is_read_from_the_engine() -> None:
    from handwritten.engine import Engine

    defaults = Engine.__init__.__kwdefaults__
    assert defaults is not None and flaky_scenarios.MAX_ATTEMPTS == defaults["max_attempts"] == 3


def _leading_failures(scenario_id: str) -> list[int]:
    """Per scripted call, in order, how many raise faults the committed file puts on it."""
    scenario = SCENARIOS[scenario_id]
    calls = [call["id"] for turn in scenario.model_script for call in turn.get("tool_calls", [])]
    assert {f.point for f in scenario.faults} <= {"tool.raise_before_effect"}
    per_call = Counter(f.call_id for f in scenario.faults)
    assert set(per_call) <= set(calls)
    return [per_call[c] for c in calls]


def _replayed_draw(rate: int, calls: int) -> tuple[list[int], list[bool]]:
    """The seed's draws replayed independently of the script: each call's attempt outcomes (True: failed)."""
    rng, schedule, outcomes = random.Random(f"flaky/{rate:02d}"), [], []
    for _ in range(calls):
        failed = 0
        for _attempt in range(flaky_scenarios.MAX_ATTEMPTS):
            fails = rng.random() < rate / 100
            outcomes.append(fails)
            if not fails:
                break
            failed += 1
        schedule.append(failed)
    return schedule, outcomes


@pytest.mark.parametrize("rate", [0, 20, 50, 80])
def test_the_committed_faults_are_the_seeds_draw_and_the_description_states_them(rate: int) -> None:
    sid = f"flaky_tool_rate_{rate:02d}"
    schedule = _leading_failures(sid)
    drawn, outcomes = _replayed_draw(rate, len(schedule))
    assert schedule == drawn
    assert all(0 <= k <= flaky_scenarios.MAX_ATTEMPTS for k in schedule)
    failed, made = outcomes.count(True), len(outcomes)  # measured on the replayed attempts, not taken from the script
    text = SCENARIOS[sid].description
    assert f"failure rate of {rate} %" in text and f'random.Random("flaky/{rate:02d}")' in text
    assert SCENARIOS[sid].failure_rate == {"percent": rate, "seed": f"flaky/{rate:02d}"}  # what the report's control reads
    stated = re.search(r"attempts per call: (.*?); (\d+) of (\d+) attempts fail\.", text)
    assert stated is not None, text
    assert (int(stated.group(2)), int(stated.group(3))) == (failed, made)
    for i, (call_text, k) in enumerate(zip(stated.group(1).split("; "), schedule, strict=True), start=1):
        outcome = ["fail"] * k + (["ok"] if k < flaky_scenarios.MAX_ATTEMPTS else [])
        assert call_text.startswith(f"c{i} {', '.join(outcome)}"), (call_text, k)


@pytest.mark.parametrize("rate", [0, 20, 50, 80])
def test_the_expectation_is_the_contracts_for_that_schedule(rate: int) -> None:
    """A call failing k < 3 times succeeds on attempt k + 1 with one effect; one failing 3 times ends as an error result
    the model sees, with no effect, and the loop goes on to the final answer."""
    sid = f"flaky_tool_rate_{rate:02d}"
    schedule = _leading_failures(sid)
    expected = EXPECTED[sid]
    assert expected["status"] == "completed" and expected["refusals"] == []
    assert expected["side_effects"] == {
        f"c{i}": {"tool_entries": min(k + 1, 3), "executor_entries": min(k + 1, 3), "effects": int(k < 3)} for i, k in enumerate(schedule, start=1)
    }
    assert expected["model"]["calls_per_turn"] == {str(t): 1 for t in range(len(schedule) + 1)}
    assert ("tool_error_as_message" in SCENARIOS[sid].covers) == (3 in schedule)
    assert ("retry_before_effect" in SCENARIOS[sid].covers) == any(schedule)


def test_every_rate_plays_the_same_model_script() -> None:
    scripts = {r: SCENARIOS[f"flaky_tool_rate_{r:02d}"].model_script for r in flaky_scenarios.RATES}
    assert len({repr(s) for s in scripts.values()}) == 1
