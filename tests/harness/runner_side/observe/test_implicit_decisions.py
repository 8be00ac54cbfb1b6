"""The driver's implicit decisions: in ``defaults``, a framework that pauses on a call the contract would not ask
about gets the contract's decision within the same driver step (approve a read-only or reversible call, reject an
always-denied one, leave a high-risk one to the human), each recorded at a sub-step; never in ``contract``.

The session below stands in for a framework that asks about every call (as AgentScope's defaults do): it walks the
scenario's model script one turn at a time, lists a turn's calls in its own order (the reverse of the model's), and
moves to the next turn once every call of the turn is decided, recording every ``decide`` call it receives."""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path
from typing import Any, ClassVar

import pytest

from adapters.column import FrameworkColumn, SessionContext
from harness.column_side.driver import run_scenario
from harness.column_side.protocol import Decision, PendingCall, StepOutcome
from harness.column_side.trace.facts import facts_from_column_trace
from harness.records import ScenarioRun
from harness.runner_side.observe.observables import observe
from harness.runner_side.observe.observation import step_facts
from harness.scenarios import SCENARIO_DIR, Scenario, load_scenario


def _call(call_id: str, tool: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": tool, "arguments": arguments}


WEATHER, NOTE = _call("c1", "get_weather", city="Paris"), _call("c2", "put_note", key="k", text="t")
DROP, TRANSFER = _call("c3", "drop_database", name="prod"), _call("c4", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=5)
MIXED = dataclasses.replace(
    load_scenario(SCENARIO_DIR / "high_risk_approved.json"),
    tools=("get_weather", "put_note", "drop_database", "transfer_funds"),
    model_script=({"tool_calls": [WEATHER]}, {"tool_calls": [NOTE, DROP]}, {"tool_calls": [TRANSFER]}, {"text": "done"}),
    driver=({"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "c4"}),
)


class AskingSession:
    """Asks about every call, a turn at a time; its state in a JSON file, as every real session keeps it on disk."""

    def __init__(self, context: SessionContext) -> None:
        self.file = context.scratch / "toy_session.json"
        self.turns = [t.get("tool_calls", []) for t in context.scenario.model_script]

    def _state(self) -> dict[str, Any]:
        return json.loads(self.file.read_text()) if self.file.exists() else {"turn": -1, "pending": [], "received": []}

    def _advance(self, state: dict[str, Any]) -> StepOutcome:
        while not state["pending"] and state["turn"] + 1 < len(self.turns):
            state["turn"] += 1
            state["pending"] = [c["id"] for c in reversed(self.turns[state["turn"]])]
        self.file.write_text(json.dumps(state))
        return self.outcome()

    def deliver(self, text: str) -> StepOutcome:
        return self._advance(self._state())

    def decide(self, decisions: list[Decision]) -> StepOutcome:
        state = self._state()
        state["received"].append([[d.call_id, d.approve, d.reason] for d in decisions])
        state["pending"] = [c for c in state["pending"] if c not in {d.call_id for d in decisions}]
        return self._advance(state)

    def outcome(self) -> StepOutcome:
        state = self._state()
        calls = {c["id"]: c for c in self.turns[state["turn"]]} if state["turn"] >= 0 else {}
        pending = tuple(PendingCall(c, calls[c]["name"], calls[c]["arguments"]) for c in state["pending"])
        status = "awaiting_approval" if pending else "completed"
        return StepOutcome(status, status, pending=pending)

    def close(self) -> None:
        pass


class AsksOneAtATime(FrameworkColumn):
    name = "toy_asks_one_at_a_time"

    def open_session(self, context: SessionContext) -> AskingSession:
        return AskingSession(context)


class AsksBatched(AsksOneAtATime):
    name = "toy_asks_batched"
    batched_decisions: ClassVar[bool] = True


def _run(column: FrameworkColumn, scenario: Scenario, mode: str, scratch: Path) -> tuple[ScenarioRun, list[Any]]:
    run = run_scenario(scenario, functools.partial(column.perform, mode=mode), scratch)
    return run, json.loads((scratch / "toy_session.json").read_text())["received"]


def test_defaults_approves_read_only_and_reversible_calls_rejects_always_denied_ones_and_leaves_high_risk_to_the_human(tmp_path: Path) -> None:
    run, received = _run(AsksOneAtATime(), MIXED, "defaults", tmp_path)
    never = "refused by policy: drop_database is never allowed"
    assert received == [[["c1", True, None]], [["c3", False, never]], [["c2", True, None]], [["c4", True, None]]]  # the session's order
    assert [(s.status, [p["call_id"] for p in s.pending]) for s in run.steps] == [("awaiting_approval", ["c4"]), ("completed", [])]
    facts = facts_from_column_trace(run, dedup_by="framework")
    assert [(d["sub_step"], d["pause"], d["call_id"], d["decision"], d["pending"]) for d in facts[0].implicit_decisions] == [
        (1, 1, "c1", "approve", ["c1"]), (2, 2, "c3", "reject", ["c3", "c2"]), (3, 2, "c2", "approve", ["c2"])]
    assert facts[1].implicit_decisions == []  # the human approved c4; nothing after it asked
    assert facts[0].approvals_granted == [] and facts[1].approvals_granted == ["c4"]  # an implicit approval is no human's grant


def test_the_implicit_decisions_reach_the_facts_and_the_approval_state_at_their_driver_step(tmp_path: Path) -> None:
    run, _ = _run(AsksOneAtATime(), MIXED, "defaults", tmp_path)
    facts = facts_from_column_trace(run, dedup_by="framework")
    assert step_facts(run.steps, facts)[0]["implicit_decision"] == [
        {"sub_step": 1, "pause": 1, "call_id": "c1", "decision": "approve", "pending": ["c1"]},
        {"sub_step": 2, "pause": 2, "call_id": "c3", "decision": "reject", "pending": ["c3", "c2"]},
        {"sub_step": 3, "pause": 2, "call_id": "c2", "decision": "approve", "pending": ["c2"]},
    ]
    model = {"calls_per_turn": {}, "missing_turns": [], "unused_turns": [], "injected": [], "marker_roles": []}
    state = observe(run, facts, model)["pre_approval_state"]
    assert [(d["step"], d["sub_step"], d["call_id"], d["tool"], d["decision"]) for d in state["implicit_decisions"]] == [
        (0, 1, "c1", "get_weather", "approve"), (0, 2, "c3", "drop_database", "reject"), (0, 3, "c2", "put_note", "approve")]
    assert [p["step"] for p in state["pauses"]] == [0] and state["undecided_at_end"] == []


def test_contract_mode_never_decides_implicitly(tmp_path: Path) -> None:
    run, received = _run(AsksOneAtATime(), dataclasses.replace(MIXED, driver=MIXED.driver[:1]), "contract", tmp_path)
    assert received == [] and [p["call_id"] for p in run.steps[0].pending] == ["c1"]
    assert "implicit_decision" not in (tmp_path / "trace.jsonl").read_text()


def test_a_high_risk_call_alone_is_never_decided_implicitly(tmp_path: Path) -> None:
    high = dataclasses.replace(MIXED, model_script=({"tool_calls": [TRANSFER]}, {"text": "done"}), driver=MIXED.driver[:1])
    run, received = _run(AsksOneAtATime(), high, "defaults", tmp_path)
    assert received == [] and [p["call_id"] for p in run.steps[0].pending] == ["c4"]


def test_a_batch_taking_framework_gets_an_implicit_decision_with_the_humans_for_the_same_turn(tmp_path: Path) -> None:
    """The note and the transfer ask in one turn: the note's approval is held (the transfer is not decided yet) and
    reaches the framework with the human's decision, as one batch in the framework's order."""
    turn = dataclasses.replace(MIXED, model_script=({"tool_calls": [NOTE, TRANSFER]}, {"text": "done"}))
    run, received = _run(AsksBatched(), turn, "defaults", tmp_path)
    assert received == [[["c4", True, None], ["c2", True, None]]]
    assert [(s.status, [p["call_id"] for p in s.pending]) for s in run.steps] == [("awaiting_approval", ["c4"]), ("completed", [])]
    assert [d["call_id"] for d in facts_from_column_trace(run, dedup_by="framework")[0].implicit_decisions] == ["c2"]


@pytest.mark.parametrize("column", [AsksOneAtATime(), AsksBatched()], ids=["one_at_a_time", "batched"])
def test_a_driver_step_answers_at_most_max_steps_pauses(column: FrameworkColumn, tmp_path: Path) -> None:
    weather = [{"tool_calls": [_call(f"c{i}", "get_weather", city="Paris")]} for i in range(1, 5)]
    looping = dataclasses.replace(MIXED, max_steps=2, model_script=(*weather, {"text": "done"}), driver=MIXED.driver[:1])
    run, received = _run(column, looping, "defaults", tmp_path)
    assert received == [[["c1", True, None]], [["c2", True, None]]]
    assert [p["call_id"] for p in run.steps[0].pending] == ["c3"]  # the third pause is left as the framework paused
