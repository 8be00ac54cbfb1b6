"""The shared contract glue blocks, on the engine's in-memory records: each outcome of ``run_once`` (and its
async twin), ``admit``'s order (schema, then policy) and the step bound counted from the conversation."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from adapters.glue_blocks import (
    Admitted,
    Contract,
    Failed,
    Ok,
    Reconciled,
    Rejected,
    Replay,
    Uncertain,
    admit,
    held_approvals,
    inbound_event,
    run_once,
    run_once_async,
    turns_left,
    verify_approval,
    whole_turn,
)
from handwritten.approvals import ApprovalAuthority
from handwritten.idempotency import MemoryIdempotencyStore
from handwritten.tools import RiskClass, ToolRegistry, ToolSpec
from harness.column_side.approver import APPROVAL_SECRET, CLOCK_START, HumanApprover
from harness.column_side.protocol import Decision

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": False}


def _contract(tmp_path: Path, events: list[dict[str, Any]], max_steps: int = 3) -> Contract:
    specs = [ToolSpec(name, "", SCHEMA, risk, lambda args, ctx: None) for name, risk in (
        ("read", RiskClass.READ_ONLY), ("write", RiskClass.REVERSIBLE_WRITE), ("pay", RiskClass.HIGH_RISK), ("drop", RiskClass.ALWAYS_DENY))]
    return Contract("s1", ToolRegistry(specs), MemoryIdempotencyStore(), tmp_path / "intents.jsonl", events.append,
                    lambda call_id: None, lambda call_id: contextlib.nullcontext(), max_steps)


class Executor:
    """Counts entries and raises the scripted exceptions first."""

    def __init__(self, *failures: BaseException) -> None:
        self.failures, self.entries = list(failures), 0

    def __call__(self) -> Any:
        self.entries += 1
        if self.failures:
            raise self.failures.pop(0)
        return {"done": self.entries}


def test_admit_checks_the_raw_arguments_strictly_before_the_policy(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []
    c = _contract(tmp_path, events)
    assert admit(c, "pay", "c1", '{"n": 1}') == Admitted({"n": 1}, needs_approval=True)
    assert admit(c, "write", "c2", {"n": 1}) == Admitted({"n": 1}, needs_approval=False)
    assert isinstance(invalid := admit(c, "drop", "c3", {"n": "1"}), Rejected) and invalid.output["error"] == "invalid arguments"
    assert admit(c, "drop", "c4", {"n": 1}).status == "refused"  # type: ignore[union-attr]
    assert admit(c, "nope", "c5", {}) == Rejected("error", {"error": "unknown tool 'nope'"})
    assert [e["kind"] for e in events] == ["call_admitted", "call_admitted", "schema_rejected", "call_admitted"]


def test_admit_runs_a_tool_that_acts_for_a_user_for_the_sessions_user_only(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []
    schema = {"type": "object", "properties": {"username": {"type": "string"}}, "additionalProperties": False}
    spec = ToolSpec("orders", "", schema, RiskClass.READ_ONLY, lambda args, ctx: None, acts_for="username")
    c = Contract("s1", ToolRegistry([spec]), MemoryIdempotencyStore(), tmp_path / "intents.jsonl", events.append,
                 lambda call_id: None, lambda call_id: contextlib.nullcontext(), 3, user="bob")
    assert admit(c, "orders", "c1", {}) == Admitted({"username": "bob"}, needs_approval=False)  # the user comes from the session
    assert admit(c, "orders", "c2", '{"username": "bob"}') == Admitted({"username": "bob"}, needs_approval=False)
    assert admit(c, "orders", "c3", {"username": "alice"}) == Rejected("refused", {"error": "refused: orders acts for the session's user only"})
    assert [e["call_id"] for e in events] == ["c1", "c2"]  # refused before the policy, as the engine refuses it
    nobody = Contract("s1", ToolRegistry([spec]), MemoryIdempotencyStore(), tmp_path / "i2.jsonl", events.append,
                      lambda call_id: None, lambda call_id: contextlib.nullcontext(), 3)
    assert isinstance(admit(nobody, "orders", "c4", {}), Rejected)  # a session without a user: nobody to act for


def test_an_effect_runs_once_and_a_second_delivery_replays_it(tmp_path: Path) -> None:
    c, execute = _contract(tmp_path, []), Executor()
    assert run_once(c, "write", "c1", {"n": 1}, execute, lambda call: None) == Ok({"done": 1})
    assert run_once(c, "write", "c1", {"n": 1}, execute, lambda call: None) == Replay('{"done":1}')  # as the records hold it: canonical JSON text
    assert execute.entries == 1
    assert run_once(c, "write", "c1", {"n": 2}, execute, lambda call: None) == Failed("idempotency key already used with different arguments")
    intents = [json.loads(line) for line in (tmp_path / "intents.jsonl").read_text().splitlines()]
    assert [i["key"] for i in intents] == ["s1/c1"] * 3  # the intent is written before every attempt to run


def test_a_failure_before_any_effect_is_retried_under_the_same_key_up_to_three_attempts(tmp_path: Path) -> None:
    c = _contract(tmp_path, [])
    assert run_once(c, "write", "c1", {"n": 1}, Executor(RuntimeError("a"), RuntimeError("b")), lambda call: None) == Ok({"done": 3})
    exhausted = Executor(*(RuntimeError(str(i)) for i in range(3)))
    assert run_once(c, "write", "c2", {"n": 1}, exhausted, lambda call: None) == Failed("failed after 3 attempts: RuntimeError: 2")
    assert run_once(c, "read", "c3", {"n": 1}, Executor(TimeoutError(), TimeoutError(), TimeoutError()), lambda call: None).error.endswith(  # type: ignore[union-attr]
        "TimeoutError"
    )


def test_a_timeout_after_entry_stops_until_a_human_settles_it(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []
    c, execute = _contract(tmp_path, events), Executor(TimeoutError())
    assert run_once(c, "pay", "c1", {"n": 1}, execute, lambda call: None) == Uncertain("c1")
    assert run_once(c, "pay", "c1", {"n": 1}, execute, lambda call: None) == Uncertain("c1")  # never retried on its own
    assert run_once(c, "pay", "c1", {"n": 1}, execute, lambda call: "confirmed") == Reconciled({"reconciled": "confirmed"})
    assert execute.entries == 1
    retried = Executor(TimeoutError())
    assert run_once(c, "pay", "c2", {"n": 1}, retried, lambda call: None) == Uncertain("c2")
    assert run_once(c, "pay", "c2", {"n": 1}, retried, lambda call: "not_executed") == Ok({"done": 2})
    with pytest.raises(ValueError, match="confirmed"):
        run_once(c, "pay", "c3", {"n": 1}, Executor(TimeoutError()), lambda call: "maybe")
    assert [e["kind"] for e in events].count("reconciled") == 2


def test_the_async_twin_gives_the_same_outcomes(tmp_path: Path) -> None:
    c, execute = _contract(tmp_path, []), Executor(RuntimeError("once"))

    async def run(call_id: str) -> Any:
        async def body() -> Any:
            return execute()

        return await run_once_async(c, "write", call_id, {"n": 1}, body, lambda call: None)

    assert asyncio.run(run("c1")) == Ok({"done": 2})
    assert asyncio.run(run("c1")) == Replay('{"done":2}')


def test_the_step_bound_counts_model_turns_since_the_last_user_input(tmp_path: Path) -> None:
    c = _contract(tmp_path, [], max_steps=3)
    assert turns_left(c, ["system", "user"]) == 3
    assert turns_left(c, ["user", "assistant", "tool", "assistant", "tool"]) == 1  # a resume continues the count
    assert turns_left(c, ["user", "assistant", "assistant", "assistant", "assistant"]) == 0
    assert turns_left(c, ["user", "assistant", "assistant", "user"]) == 3  # a new input starts a new run


def test_tokens_are_verified_bound_and_single_use_and_events_claimed_once(tmp_path: Path) -> None:
    c = _contract(tmp_path, [])
    authority = ApprovalAuthority(APPROVAL_SECRET, clock=lambda: CLOCK_START, new_token_id=lambda: "unused")
    args = {"n": 5}
    approver = HumanApprover()
    good = approver.approve(CLOCK_START, "s1", "pay", args, call_id="c1")
    misuses = ("other_args", "other_session", "expired", "forged")
    refusals = [verify_approval(c, authority, "c1", "pay", args, approver.misuse(kind, CLOCK_START, "s1", "pay", args, call_id="c1")) for kind in misuses]
    assert refusals == list(misuses)
    assert verify_approval(c, authority, "c2", "pay", args, good) == "other_call"  # the same action, approved for c1
    assert [verify_approval(c, authority, "c1", "pay", args, good) for _ in range(2)] == [None, "reused"]
    status = ["completed"]
    now = lambda: status[0]  # noqa: E731
    assert [inbound_event(c, "e1", now), inbound_event(c, "e1", now), inbound_event(c, "e2", now)] == [None, "duplicate_event", None]
    status[0] = "awaiting_approval"  # a new event while the run waits is refused and not recorded: once it ends, it is applied
    assert [inbound_event(c, "e3", now), inbound_event(c, "e2", now)] == ["run_unfinished", "duplicate_event"]
    status[0] = "completed"
    assert inbound_event(c, "e3", now) is None


def test_a_turn_is_approved_as_a_whole_rejections_at_once(tmp_path: Path) -> None:
    """Three calls wait; an approval is held (and no longer pending), a rejection goes at once, and the last decision
    hands over every held approval in the framework's order."""
    held, turn = tmp_path / "held_decisions.json", ["c1", "c2", "c3"]
    assert whole_turn(held, turn, [Decision("c3", True)]) == []
    assert held_approvals(held, turn) == ["c3"]
    assert whole_turn(held, turn, [Decision("c2", False, "no")]) == [Decision("c2", False, "no")]
    assert held_approvals(held, ["c1", "c3"]) == ["c3"]  # the framework answered the rejection: two calls wait
    assert whole_turn(held, ["c1", "c3"], [Decision("c1", True)]) == [Decision("c1", True), Decision("c3", True)]
    assert not held.exists() and whole_turn(held, ["c9"], [Decision("c9", True)]) == [Decision("c9", True)]
