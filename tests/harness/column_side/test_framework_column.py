"""The base of the third-party columns: the checks it does before any framework sees a step, and decisions
by call id, held until a batch-taking framework can take the whole turn.

The session below stands in for a framework (the thing under test is the base class, not a framework):
it keeps its state in a JSON file, as every real session keeps it on disk, lists its pending calls in its
own order (the reverse of the model's) and records every ``decide`` call it receives."""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path
from typing import Any, ClassVar

import pytest

from adapters.column import FrameworkColumn, SessionContext
from harness.column_side.approver import HumanApprover
from harness.column_side.driver import run_scenario
from harness.column_side.protocol import Decision, InboundEvent, PendingCall, StepOutcome, StepRequest
from harness.scenarios import SCENARIO_DIR, load_scenario

SCENARIO = load_scenario(SCENARIO_DIR / "decisions_out_of_order.json")


class FileSession:
    """Two calls of one turn pending after ``deliver``, listed in reverse; decisions recorded as received."""

    def __init__(self, context: SessionContext) -> None:
        self.file = context.scratch / "toy_session.json"
        self.calls = {c["id"]: c for c in context.scenario.model_script[0]["tool_calls"]}

    def _state(self) -> dict[str, Any]:
        return json.loads(self.file.read_text()) if self.file.exists() else {"pending": [], "received": []}

    def _save(self, state: dict[str, Any]) -> StepOutcome:
        self.file.write_text(json.dumps(state))
        return self.outcome()

    def deliver(self, text: str) -> StepOutcome:
        return self._save({**self._state(), "pending": sorted(self.calls, reverse=True)})

    def decide(self, decisions: list[Decision]) -> StepOutcome:
        state = self._state()
        state["received"].append([[d.call_id, d.approve] for d in decisions])
        state["pending"] = [c for c in state["pending"] if c not in {d.call_id for d in decisions}]
        return self._save(state)

    def outcome(self) -> StepOutcome:
        pending = tuple(PendingCall(c, self.calls[c]["name"], self.calls[c]["arguments"]) for c in self._state()["pending"])
        status = "awaiting_approval" if pending else "completed"
        return StepOutcome(status, status, pending=pending)

    def snapshot(self, path: Path) -> StepOutcome:
        path.write_text(self.file.read_text())
        return self.outcome()

    def restore(self, path: Path) -> StepOutcome:
        self.file.write_text(path.read_text())
        return self.outcome()

    def close(self) -> None:
        pass


class OneAtATime(FrameworkColumn):
    name = "toy_one_at_a_time"

    def open_session(self, context: SessionContext) -> FileSession:
        return FileSession(context)


class Batched(OneAtATime):
    name = "toy_batched"
    batched_decisions: ClassVar[bool] = True


def _received(column: FrameworkColumn, mode: str, scratch: Path) -> tuple[list[str], list[Any]]:
    run = run_scenario(SCENARIO, functools.partial(column.perform, mode=mode), scratch)
    return [s.status for s in run.steps], json.loads((scratch / "toy_session.json").read_text())["received"]


@pytest.mark.parametrize("mode", ["defaults", "contract"])
def test_decisions_reach_a_one_at_a_time_framework_by_call_id_in_the_drivers_order(mode: str, tmp_path: Path) -> None:
    statuses, received = _received(OneAtATime(), mode, tmp_path)
    assert received == [[["c2", False]], [["c1", True]]]
    assert statuses == ["awaiting_approval", "awaiting_approval", "completed"]


@pytest.mark.parametrize("mode", ["defaults", "contract"])
def test_a_batch_taking_framework_gets_the_whole_turn_once_in_its_own_order(mode: str, tmp_path: Path) -> None:
    statuses, received = _received(Batched(), mode, tmp_path)
    assert received == [[["c2", False], ["c1", True]]]  # the session lists c2 first: its order, not the driver's
    assert statuses == ["awaiting_approval", "awaiting_approval", "completed"]
    held = [e for e in (tmp_path / "trace.jsonl").read_text().splitlines() if '"decision_held"' in e]
    assert len(held) == 1 and '"c2"' in held[0]


def _run(index: int, event_id: str = "e1") -> StepRequest:
    return StepRequest(index, "run", 0.0, event=InboundEvent(event_id, SCENARIO.user_input))


def _step(column: FrameworkColumn, scratch: Path, request: StepRequest, mode: str = "contract") -> StepOutcome:
    return column.perform(SCENARIO, scratch, request, mode)


@pytest.mark.parametrize(
    "misuse", ["other_args", "other_session", "expired", "forged"],
)
def test_contract_refuses_a_misused_token_before_the_framework_sees_it(misuse: str, tmp_path: Path) -> None:
    column = OneAtATime()
    _step(column, tmp_path, _run(0))
    call = SCENARIO.scripted_call("c1")
    token = HumanApprover().misuse(misuse, 0.0, SCENARIO.session_id, call["name"], call["arguments"], call_id="c1")
    outcome = _step(column, tmp_path, StepRequest(1, "misuse_token", 0.0, call_id="c1", token=token))
    assert (outcome.status, outcome.refusal, outcome.session_status) == ("refused", misuse, "awaiting_approval")
    assert json.loads((tmp_path / "toy_session.json").read_text())["received"] == []


def test_contract_takes_a_token_once_and_defaults_takes_any(tmp_path: Path) -> None:
    column, call = OneAtATime(), SCENARIO.scripted_call("c1")
    token = HumanApprover().approve(0.0, SCENARIO.session_id, call["name"], call["arguments"], call_id="c1")
    for mode, scratch in (("contract", tmp_path / "c"), ("defaults", tmp_path / "d")):
        scratch.mkdir()
        _step(column, scratch, _run(0), mode)
        first = _step(column, scratch, StepRequest(1, "approve", 0.0, call_id="c1", token=token), mode)
        new_event = _step(column, scratch, _run(2, "e2"), mode)  # in defaults the same call is pending again
        again = _step(column, scratch, StepRequest(3, "approve", 0.0, call_id="c1", token=token), mode)
        assert first.status == "awaiting_approval"
        if mode == "contract":  # the glue refuses a new event while the run waits, and takes the spent token nowhere
            assert (new_event.status, new_event.refusal, again.status) == ("refused", "run_unfinished", "refused")
        else:
            assert (again.status, again.refusal) == ("awaiting_approval", None)


def test_contract_refuses_a_decision_on_a_call_that_is_not_pending_and_reconcile_without_an_uncertain_call(tmp_path: Path) -> None:
    column = OneAtATime()
    assert _step(column, tmp_path, StepRequest(0, "reject", 0.0, call_id="c1")).refusal == "not_pending"
    reconcile = _step(column, tmp_path, StepRequest(1, "reconcile", 0.0, call_id="c1", outcome="confirmed"))
    assert reconcile.refusal == "no uncertain call 'c1' to reconcile"
    assert _step(column, tmp_path, StepRequest(2, "reconcile", 0.0, call_id="c1", outcome="confirmed"), "defaults").refusal == (
        "not supported by toy_one_at_a_time"
    )


def test_a_held_call_is_decided_so_deciding_it_again_is_refused_in_contract_and_replaces_it_in_defaults(tmp_path: Path) -> None:
    column = Batched()
    for mode in ("contract", "defaults"):
        scratch = tmp_path / mode
        scratch.mkdir()
        _step(column, scratch, _run(0), mode)
        held = _step(column, scratch, StepRequest(1, "reject", 0.0, call_id="c1"), mode)
        assert [p.call_id for p in held.pending] == ["c2"]  # the held call waits for nobody: not pending
        again = _step(column, scratch, StepRequest(2, "reject", 0.0, call_id="c1", reason="changed my mind"), mode)
        assert (again.status, again.refusal) == (("refused", "not_pending") if mode == "contract" else ("awaiting_approval", None))
        _step(column, scratch, StepRequest(3, "reject", 0.0, call_id="c2"), mode)
        received = json.loads((scratch / "toy_session.json").read_text())["received"]
        assert received == [[["c2", False], ["c1", False]]]


def test_a_restore_brings_back_the_decisions_held_at_the_snapshot_and_no_later_one(tmp_path: Path) -> None:
    column = Batched()
    _step(column, tmp_path, _run(0))
    _step(column, tmp_path, StepRequest(1, "snapshot", 0.0, name="s0"))
    assert [p.call_id for p in _step(column, tmp_path, StepRequest(2, "reject", 0.0, call_id="c1")).pending] == ["c2"]
    restored = _step(column, tmp_path, StepRequest(3, "restore", 0.0, name="s0"))
    assert [p.call_id for p in restored.pending] == ["c2", "c1"]  # the rejection was given after the snapshot
    assert _step(column, tmp_path, StepRequest(4, "reject", 0.0, call_id="c2")).status == "awaiting_approval"
    assert json.loads((tmp_path / "toy_session.json").read_text())["received"] == []


class CrashedOnResume(OneAtATime):
    """Reports the state it finds after a resume as ``crashed`` (a session left running), with no kill at all."""

    name = "toy_crashed"

    def open_session(self, context: SessionContext) -> FileSession:
        session = FileSession(context)
        session.resume = lambda: StepOutcome("crashed", "crashed")  # type: ignore[attr-defined]
        return session


def test_a_crashed_state_the_column_finds_is_not_taken_for_a_kill(tmp_path: Path) -> None:
    scenario = dataclasses.replace(SCENARIO, driver=({"action": "run", "event_id": "e1"}, {"action": "resume"}))
    run = run_scenario(scenario, functools.partial(CrashedOnResume().perform, mode="defaults"), tmp_path)
    assert [(s.status, s.killed, s.error) for s in run.steps] == [("awaiting_approval", False, None), ("crashed", False, None)]


def test_every_held_call_of_a_turn_is_left_out_of_the_pending_calls(tmp_path: Path) -> None:
    calls = SCENARIO.model_script[0]["tool_calls"]
    three = dataclasses.replace(SCENARIO, model_script=({"tool_calls": [*calls, {**calls[0], "id": "c3"}]}, *SCENARIO.model_script[1:]))
    column = Batched()
    assert [p.call_id for p in column.perform(three, tmp_path, _run(0), "contract").pending] == ["c3", "c2", "c1"]
    pending = [[p.call_id for p in column.perform(three, tmp_path, StepRequest(i, "reject", 0.0, call_id=c), "contract").pending]
               for i, c in ((1, "c3"), (2, "c1"))]
    assert pending == [["c2", "c1"], ["c2"]]


class Recording(OneAtATime):
    """Records each decision whole (misuse and the call its object was made for), carrying the call binding only."""

    name = "toy_recording"
    approval_fields: ClassVar[dict[str, str]] = {"call": "harness.column_side.protocol:Decision made_for"}

    def open_session(self, context: SessionContext) -> FileSession:
        session = FileSession(context)
        plain = session.decide

        def decide(decisions: list[Decision]) -> StepOutcome:
            (context.scratch / "decisions.jsonl").open("a").write(json.dumps([dataclasses.asdict(d) for d in decisions]) + "\n")
            return plain(decisions)

        session.decide = decide  # type: ignore[method-assign]
        return session


@pytest.mark.parametrize("column", [Recording(), type("BatchedRecording", (Recording,), {"name": "toy_batched_recording", "batched_decisions": True})()])
def test_a_misuse_reaches_the_framework_only_when_its_object_carries_the_binding(column: FrameworkColumn, tmp_path: Path) -> None:
    _step(column, tmp_path, _run(0), "defaults")
    _step(column, tmp_path, StepRequest(1, "misuse_token", 0.0, call_id="c1", token="t", misuse="other_call", made_for="c2"), "defaults")
    _step(column, tmp_path, StepRequest(2, "misuse_token", 0.0, call_id="c2", token="t", misuse="expired", made_for="c2"), "defaults")
    handed = [d for line in (tmp_path / "decisions.jsonl").read_text().splitlines() for d in json.loads(line)]
    assert {d["call_id"]: (d["misuse"], d["made_for"]) for d in handed} == {"c1": ("other_call", "c2"), "c2": (None, None)}  # expiry: not carried
    objects = [json.loads(e) for e in (tmp_path / "trace.jsonl").read_text().splitlines() if '"approval_object"' in e]
    assert [(o["misuse"], o["binding"], o["carried"]) for o in objects] == [("other_call", "call", True), ("expired", "expiry", False)]


def test_a_misuse_is_never_handed_to_the_framework_in_contract(tmp_path: Path) -> None:
    column = Recording()
    _step(column, tmp_path, _run(0))
    outcome = _step(column, tmp_path, StepRequest(1, "misuse_token", 0.0, call_id="c1", token="not a token", misuse="other_call", made_for="c2"))
    assert outcome.status == "refused" and not (tmp_path / "decisions.jsonl").exists()


def test_edited_arguments_change_one_argument_and_keep_the_call_valid() -> None:
    from handwritten.schema import ArgsValidator
    from harness.column_side.approver import edited_args
    from harness.fixture_tools import FIXTURE_TOOLS

    transfer = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
    assert edited_args(transfer) == {**transfer, "amount_cents": 2501}
    assert ArgsValidator(FIXTURE_TOOLS["transfer_funds"].schema).check(edited_args(transfer)).ok  # an edit a framework can run
    assert edited_args(json.dumps({"city": "Paris"})) == {"city": "Paris (edited)"}
    assert edited_args([1]) == {"changed": [1]}


def test_a_set_a_framework_prints_in_its_message_is_traced_in_sorted_order() -> None:
    from adapters.column import _sets_sorted

    assert _sets_sorted("Expected: {'c2', 'c1'}, got: {'c2'}") == "Expected: {'c1', 'c2'}, got: {'c2'}"
    assert _sets_sorted("a dict {'b': 1, 'a': 2} stays as it is") == "a dict {'b': 1, 'a': 2} stays as it is"
