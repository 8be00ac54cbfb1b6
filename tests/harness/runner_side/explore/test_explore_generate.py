"""The scenario generator: a seed reproduces its corpus byte for byte, every example loads with the project's own
loader, and a few hundred examples reach every driver action, misuse, fault point (the model endpoint's among them) and
kind of model call the format has; the endpoint's faults are drawn apart, so they change nothing else of an example."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from harness.columns import ROOT
from harness.fixture_tools import FIXTURE_TOOLS
from harness.runner_side.explore import generate as generator
from harness.runner_side.explore.generate import MISUSES, examples, generate, write_corpus
from harness.scenarios import FAULT_POINTS, WIRE_POINTS, load_scenarios

SCHEMA_ACTIONS = json.loads((ROOT / "scenarios" / "scenario.schema.json").read_text())["$defs"]["step"]["properties"]["action"]["enum"]


def test_a_seed_reproduces_its_corpus_and_another_seed_does_not(tmp_path: Path) -> None:
    first = [p.read_bytes() for p in write_corpus(tmp_path / "a", 7, 40)]
    again = [p.read_bytes() for p in write_corpus(tmp_path / "b", 7, 40)]
    other = [p.read_bytes() for p in write_corpus(tmp_path / "c", 8, 40)]
    assert first == again
    assert sum(a != b for a, b in zip(first, other, strict=True)) > 30
    assert generate(7, 39) == list(examples(7, 40))[39]  # an example depends on its seed and index only, not on the corpus size


def test_every_example_loads_and_the_corpus_reaches_every_part_of_the_format(tmp_path: Path) -> None:
    write_corpus(tmp_path, 1, 400)
    scenarios = load_scenarios(tmp_path)  # raises ScenarioError on anything the format refuses
    assert len(scenarios) == 400
    actions = Counter(step["action"] for s in scenarios for step in s.driver)
    misuses = Counter(step["misuse"] for s in scenarios for step in s.driver if "misuse" in step)
    points = Counter(f.point for s in scenarios for f in s.faults)
    calls = [c for s in scenarios for turn in s.model_script for c in turn.get("tool_calls", ())]
    assert set(actions) == set(SCHEMA_ACTIONS), set(SCHEMA_ACTIONS) - set(actions)
    assert set(misuses) == set(MISUSES)
    assert set(points) == set(FAULT_POINTS) - {"state.kill_after_save"}  # the in-process points and the model endpoint's
    # (a save's number is each column's own: the generator, whose examples columns play side by side, leaves it out)
    assert {c["name"] for c in calls} >= set(FIXTURE_TOOLS)
    assert any(c["name"] not in FIXTURE_TOOLS for c in calls)  # a tool no fixture has
    assert any(isinstance(c["arguments"], str) and _cut_short(c["arguments"]) for c in calls)  # raw JSON text cut short
    assert any(isinstance(c["arguments"], str) and not _cut_short(c["arguments"]) for c in calls)  # well-formed raw text
    assert any(c["name"] == "list_orders" and isinstance(c["arguments"], dict) and c["arguments"].get("username") not in (None, s.user)
               for s in scenarios for turn in s.model_script for c in turn.get("tool_calls", ()))  # an identity-scoped call naming another user
    assert any(len(turn.get("tool_calls", ())) > 1 for s in scenarios for turn in s.model_script)  # parallel batches
    assert any(_repeats_an_id(s.model_script) for s in scenarios)
    assert any("text" in turn and "tool_calls" not in turn for s in scenarios for turn in s.model_script)  # final texts
    assert any(s.user != "alice" for s in scenarios) and any(s.system_prompt for s in scenarios)
    steps = [step for s in scenarios for step in s.driver]
    assert any(step.get("advance_clock_s") for step in steps)
    assert {step["outcome"] for step in steps if "outcome" in step} == {"confirmed", "not_executed"}


def test_the_model_endpoints_faults_reach_what_the_format_allows(tmp_path: Path) -> None:
    write_corpus(tmp_path, 1, 400)
    scenarios = load_scenarios(tmp_path)
    wired = [s for s in scenarios if s.uses_wire]
    assert 40 <= len(wired) <= 120  # about one in five: the in-process modes leave them out
    faults = [f for s in wired for f in s.faults if f.point in WIRE_POINTS]
    assert {f.point for f in faults} == set(WIRE_POINTS)
    statuses = {f.status for f in faults if f.status is not None}
    assert {408, 429} & statuses and {s for s in statuses if s >= 500} and {s for s in statuses if 400 <= s < 500 and s not in (408, 429)}
    assert {f.repeat for f in faults} == {None, "once", "always"}
    waits = {f.retry_after for f in faults if f.retry_after is not None}
    assert any(w <= 2 for w in waits) and any(w > 2 for w in waits)  # a Retry-After the contract waits, and one it does not
    assert any(max(Counter(f.turn for f in s.faults if f.point in WIRE_POINTS).values()) >= 3 for s in wired)  # a turn's three attempts used up
    assert all("model_retry" in s.covers for s in wired if any(f.point in WIRE_POINTS and f.point != "model.http_slow" for f in s.faults))
    assert any(len(s.faults) > sum(f.point in WIRE_POINTS for f in s.faults) for s in wired)  # beside an in-process fault


def test_the_endpoints_faults_change_nothing_else(monkeypatch: pytest.MonkeyPatch) -> None:
    wired = [generate(1, i) for i in range(200)]
    monkeypatch.setattr(generator, "WIRE_SHARE", 0.0)  # as the generator drew before it knew the wire
    for with_wire, without in zip(wired, (generate(1, i) for i in range(200)), strict=True):
        in_process = [f for f in with_wire["faults"] if f["point"] not in WIRE_POINTS]
        tags = [t for t in with_wire["covers"] if t not in ("model_retry", "model_unavailable")]
        assert {**with_wire, "faults": in_process, "covers": tags} == without
    assert sum(len(d["faults"]) > len([f for f in d["faults"] if f["point"] not in WIRE_POINTS]) for d in wired) > 20


def _cut_short(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def _repeats_an_id(script: tuple[dict, ...]) -> bool:
    ids = [c["id"] for turn in script for c in turn.get("tool_calls", ())]
    return len(ids) != len(set(ids))
