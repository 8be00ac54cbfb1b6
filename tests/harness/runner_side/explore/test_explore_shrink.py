"""Shrinking: a generated scenario that fails for one reason shrinks to the steps, turns, calls and fault fields that reason needs,
every candidate tried is one the loader accepts, and a round asks about all its candidates at once."""

from __future__ import annotations

from typing import Any

from harness.runner_side.explore.generate import generate
from harness.runner_side.explore.shrink import loadable, reductions, shrink


def _needs_reject_of_c1(doc: dict[str, Any]) -> bool:
    return any(s["action"] == "reject" and s["call_id"] == "c1" for s in doc["driver"])


def _seeded_failure() -> dict[str, Any]:
    """A generated scenario, with a rejection of c1 appended (the 'failure' the predicate looks for)."""
    doc = next(d for d in (generate(5, i) for i in range(200)) if len(d["driver"]) >= 4 and len(d["model_script"]) >= 3 and d["faults"])
    return {**doc, "driver": [*doc["driver"], {"action": "reject", "call_id": "c1"}]}


def test_a_failure_shrinks_to_what_it_needs_and_every_candidate_loads() -> None:
    doc = _seeded_failure()
    asked: list[int] = []

    def still_fails(candidates: list[dict[str, Any]]) -> list[bool]:
        asked.append(len(candidates))
        assert all(loadable(c) for c in candidates)
        assert len({c["id"] for c in candidates}) == len(candidates)
        return [_needs_reject_of_c1(c) for c in candidates]

    smallest, rounds = shrink(doc, still_fails)
    assert _needs_reject_of_c1(smallest)
    assert smallest["driver"] == [doc["driver"][0], {"action": "reject", "call_id": "c1"}]
    assert smallest["faults"] == [] and len(smallest["model_script"]) == 1 and len(smallest["tools"]) == 1
    assert [c["id"] for c in smallest["model_script"][0]["tool_calls"]] == ["c1"]
    assert rounds == len(asked) - 1 and max(asked) > 1  # one call per round, with every candidate of that round


def test_a_reduction_never_leaves_a_reference_dangling() -> None:
    for index in range(60):
        doc = generate(6, index)
        for candidate in reductions(doc):
            ids = {c["id"] for t in candidate["model_script"] for c in t.get("tool_calls", ())}
            assert all(step[name] in ids for step in candidate["driver"] for name in ("call_id", "other_call_id") if name in step)
            assert all(f["call_id"] in ids for f in candidate["faults"] if "call_id" in f)
            assert all(f["turn"] < len(candidate["model_script"]) for f in candidate["faults"] if "turn" in f)
            for i, step in enumerate(candidate["driver"]):  # a restore comes after a snapshot of its name
                if step["action"] == "restore":
                    assert any(s["action"] == "snapshot" and s["name"] == step["name"] for s in candidate["driver"][:i])


def test_a_wire_failure_shrinks_to_its_fault_without_the_fields_it_does_not_need() -> None:
    doc = next(d for d in (generate(1, i) for i in range(400)) if any("retry_after" in f and "repeat" in f for f in d["faults"]))
    status = next(f["status"] for f in doc["faults"] if "retry_after" in f and "repeat" in f)

    smallest, _ = shrink(doc, lambda candidates: [any(f.get("status") == status for f in c["faults"]) for c in candidates])
    assert smallest["faults"] == [{"point": "model.http_status", "status": status, "turn": 0}]
    assert len(smallest["model_script"]) == 1 and smallest["driver"] == doc["driver"][:1]


def test_nothing_smaller_failing_leaves_the_scenario_as_it_was() -> None:
    doc = generate(5, 3)
    smallest, rounds = shrink(doc, lambda candidates: [False] * len(candidates))
    assert (smallest, rounds) == (doc, 0)
