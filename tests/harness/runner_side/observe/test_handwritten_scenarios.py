"""Every scenario through the hand-written engine: observables and traces asserted whole."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.columns import REFERENCE, ROOT
from harness.runner_side.observe.observables import expected_names
from harness.scenarios import load_expectations, load_scenarios

SCENARIO_IDS = [s.id for s in load_scenarios()]
EXPECTED = load_expectations()
_MODES = json.loads((ROOT / "evidence" / f"{REFERENCE}.json").read_text(encoding="utf-8"))["modes"]
COMMITTED = {**_MODES["wire"]["scenarios"], **_MODES["contract"]["scenarios"]}  # a wire fault's scenario is played in wire mode only


@pytest.mark.parametrize("scenario_id", SCENARIO_IDS)
def test_observables_equal_the_contract(handwritten_checks: dict[str, Any], scenario_id: str) -> None:
    check = handwritten_checks[scenario_id]
    assert check.status == "ok", check.record["steps"]
    expected = EXPECTED[scenario_id]  # wire only where the block gives it (a scenario with a fault of the model's endpoint)
    assert {name: check.actual[name] for name in expected_names(expected)} == expected


@pytest.mark.parametrize("scenario_id", SCENARIO_IDS)
def test_trace_equals_the_reviewed_snapshot(handwritten_checks: dict[str, Any], scenario_id: str) -> None:
    """The committed evidence is the reviewed snapshot of each trace; any change shows up here as a diff."""
    check = handwritten_checks[scenario_id]
    committed = COMMITTED[scenario_id]
    assert {"steps": check.record["steps"], "trace": check.record["trace"], "model_requests": check.record["model_requests"]} == {
        "steps": committed["steps"],
        "trace": committed["trace"],
        "model_requests": committed["model_requests"],
    }


def test_every_scenario_file_is_in_the_committed_evidence() -> None:
    assert sorted(COMMITTED) == sorted(SCENARIO_IDS)


def test_no_tool_is_entered_after_a_schema_rejection(handwritten_checks: dict[str, Any]) -> None:
    """Across all scenarios: a call rejected by schema never reached the ledger."""
    rejected = {
        (sid, e["call_id"])
        for sid, check in handwritten_checks.items()
        for e in check.record["trace"]
        if e["kind"] == "schema_rejected"
    }
    assert rejected, "the scenarios must exercise schema rejection"
    entered = {(sid, cid) for sid, check in handwritten_checks.items() for cid in check.actual["side_effects"]}
    assert rejected & entered == set()


def test_every_effectful_call_was_checkpointed_before_its_executor(handwritten_checks: dict[str, Any]) -> None:
    """In every trace, a call's intent checkpoint precedes its first result from the executor."""
    for sid, check in handwritten_checks.items():
        checkpointed: set[str] = set()
        for e in check.record["trace"]:
            if e["kind"] == "intent_checkpointed":
                checkpointed.add(e["call_id"])
            if e["kind"] == "tool_result" and e["status"] in ("ok", "replayed"):
                assert e["call_id"] in checkpointed, (sid, e)
