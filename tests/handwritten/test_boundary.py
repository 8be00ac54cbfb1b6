"""The tool boundary: a call from outside the engine's loop meets the same contract, and nothing the caller sends approves.

Each test drives a ``ToolBoundary`` over the fixture world with a real ledger file and real session records, and
checks the outcome and the ledger's counts (the side-effect truth)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from handwritten.boundary import ToolBoundary
from handwritten.canonical import args_hash
from handwritten.session_records import MAX_WAITING, SessionRecords
from handwritten.tools import ToolRegistry
from harness.column_side.fixtures.world import FixtureWorld
from harness.fixture_tools import FIXTURE_TOOLS
from harness.ledger import ledger_counts
from harness.scenarios import Fault

TRANSFER = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 500}
NOW = 1_000.0


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def boundary(tmp_path: Path, clock: Clock, session: str = "s1", faults: list[Fault] | None = None) -> ToolBoundary:
    world = FixtureWorld(tmp_path, faults or [], may_kill=False)
    records = SessionRecords(tmp_path / "sessions" / session)
    return ToolBoundary(ToolRegistry(world.tool_specs(list(FIXTURE_TOOLS))), records, session, "alice", clock)


def counts(tmp_path: Path) -> dict[str, tuple[int, int, int]]:
    return {cid: (c["tool_entries"], c["executor_entries"], c["effects"]) for cid, c in ledger_counts(str(tmp_path / "ledger.sqlite")).items()}


@pytest.mark.parametrize(
    ("tool", "arguments", "status", "reason"),
    [
        ("transfer_funds", {**TRANSFER, "amount_cents": "500"}, "invalid_arguments", "invalid_arguments"),
        ("transfer_funds", {**TRANSFER, "note": "extra"}, "invalid_arguments", "invalid_arguments"),
        ("transfer_funds", "not an object", "invalid_arguments", "invalid_arguments"),
        ("delete_everything", {}, "unknown_tool", "unknown_tool"),
        ("drop_database", {"name": "prod"}, "denied", "always_deny"),
        ("transfer_funds", TRANSFER, "approval_required", "approval_required"),
        ("list_orders", {"username": "bob"}, "refused", "other_user"),
    ],
)
def test_refused_calls_leave_the_ledger_unchanged(tmp_path: Path, clock: Clock, tool: str, arguments: object, status: str, reason: str) -> None:
    result = boundary(tmp_path, clock).call(tool, arguments, key="k1")
    assert (result.status, result.reason, result.is_error) == (status, reason, True)
    assert counts(tmp_path) == {}


def test_the_user_comes_from_the_session(tmp_path: Path, clock: Clock) -> None:
    b = boundary(tmp_path, clock)
    assert b.call("list_orders", {}).output == {"username": "alice", "orders": ["ORD-1001 (shipped)"]}
    assert b.call("list_orders", {"username": "alice"}).status == "ok"


def test_a_grant_runs_the_call_once_and_a_resend_with_its_key_is_replayed(tmp_path: Path, clock: Clock) -> None:
    b = boundary(tmp_path, clock)
    first = b.call("transfer_funds", TRANSFER, key="k1")
    assert first.status == "approval_required"
    assert [p["pending_id"] for p in b.records.pending()] == [first.output["pending_id"]]
    assert b.records.grant_pending(first.output["pending_id"], NOW + 60) is not None
    assert b.records.pending() == []
    ran = b.call("transfer_funds", TRANSFER, key="k1")
    again = b.call("transfer_funds", TRANSFER, key="k1")
    assert (ran.status, again.status, again.output) == ("ok", "replayed", ran.output)
    assert b.call("transfer_funds", TRANSFER, key="k2").status == "approval_required"  # used once: a new call needs a new grant
    assert counts(tmp_path) == {"k1": (1, 1, 1)}


def test_grants_are_bound_to_tool_arguments_key_session_and_expiry(tmp_path: Path, clock: Clock) -> None:
    b = boundary(tmp_path, clock)
    b.records.grant("transfer_funds", args_hash({**TRANSFER, "amount_cents": 501}), NOW + 60, "k1")  # other arguments
    b.records.grant("send_email", args_hash(TRANSFER), NOW + 60, "k1")  # another tool
    b.records.grant("transfer_funds", args_hash(TRANSFER), NOW + 60, "k2")  # another call's key
    b.records.grant("transfer_funds", args_hash(TRANSFER), NOW + 60, None)  # the next call sent without a key
    assert b.call("transfer_funds", TRANSFER, key="k1").reason == "approval_required"
    other = SessionRecords(tmp_path / "sessions" / "s2")  # another session's grant
    other.grant("transfer_funds", args_hash(TRANSFER), NOW + 60, "k1")
    assert b.call("transfer_funds", TRANSFER, key="k1").reason == "approval_required"
    b.records.grant("transfer_funds", args_hash(TRANSFER), NOW + 60, "k1")
    clock.now = NOW + 60
    assert b.call("transfer_funds", TRANSFER, key="k1").reason == "approval_expired"
    assert counts(tmp_path) == {}


def test_a_grant_for_one_call_approves_no_other_call_with_the_same_arguments(tmp_path: Path, clock: Clock) -> None:
    b = boundary(tmp_path, clock)
    b.records.grant("transfer_funds", args_hash(TRANSFER), NOW + 60, "k1")
    assert b.call("transfer_funds", TRANSFER, key="k2").reason == "approval_required"
    assert b.call("transfer_funds", TRANSFER).reason == "approval_required"
    assert b.call("transfer_funds", TRANSFER, key="k1").status == "ok"
    assert counts(tmp_path) == {"k1": (1, 1, 1)}


def test_an_approval_the_client_sends_is_refused_and_leaves_the_grant_unused(tmp_path: Path, clock: Clock) -> None:
    b = boundary(tmp_path, clock)
    b.records.grant("transfer_funds", args_hash(TRANSFER), NOW + 60, "k1")
    refused = b.call("transfer_funds", TRANSFER, key="k1", claimed_approval=True)
    assert (refused.status, refused.reason) == ("refused", "client_approval")
    assert counts(tmp_path) == {}
    assert b.call("transfer_funds", TRANSFER, key="k1").status == "ok"


def test_without_a_key_every_call_is_new(tmp_path: Path, clock: Clock) -> None:
    b = boundary(tmp_path, clock)
    note = {"key": "n", "text": "t"}
    ids = [b.call("put_note", note).call_id for _ in range(2)] + [b.call("put_note", note, key="k").call_id for _ in range(2)]
    assert ids == ["srv:1", "srv:2", "k", "k"]
    assert counts(tmp_path) == {"srv:1": (1, 1, 1), "srv:2": (1, 1, 1), "k": (1, 1, 1)}


def test_a_timeout_after_the_effect_is_uncertain_until_reconciled(tmp_path: Path, clock: Clock) -> None:
    b = boundary(tmp_path, clock, faults=[Fault("tool.timeout_after_effect", call_id="k1")])
    assert b.call("put_note", {"key": "n", "text": "t"}, key="k1").status == "uncertain"
    assert b.call("put_note", {"key": "n", "text": "t"}, key="k1").status == "uncertain"  # never retried on its own
    assert b.records.reconcile("k1", "confirmed") == "reconciled"
    assert b.records.reconcile("k1", "confirmed") == "not_uncertain"
    assert b.call("put_note", {"key": "n", "text": "t"}, key="k1").status == "replayed"
    assert counts(tmp_path) == {"k1": (1, 1, 1)}


def test_a_failed_attempt_of_an_approved_call_retries_under_its_grant(tmp_path: Path, clock: Clock) -> None:
    b = boundary(tmp_path, clock, faults=[Fault("tool.raise_before_effect", call_id="k1")])
    b.records.grant("transfer_funds", args_hash(TRANSFER), NOW + 60, "k1")
    assert b.call("transfer_funds", TRANSFER, key="k1").status == "error"
    assert b.call("transfer_funds", TRANSFER, key="k1").status == "ok"
    assert counts(tmp_path) == {"k1": (2, 2, 1)}


def test_a_restarted_boundary_continues_the_session_from_its_files(tmp_path: Path, clock: Clock) -> None:
    first = boundary(tmp_path, clock)
    first.records.grant("transfer_funds", args_hash(TRANSFER), NOW + 60, "k1")
    assert first.call("transfer_funds", TRANSFER, key="k1").status == "ok"
    pending = first.call("send_email", {"to": "a@b.c", "subject": "s", "body": "b"}, key="k2").output["pending_id"]
    first.records.close()
    second = boundary(tmp_path, clock)
    assert second.call("transfer_funds", TRANSFER, key="k1").status == "replayed"
    assert [p["pending_id"] for p in second.records.pending()] == [pending]


def test_a_second_delivery_while_the_key_is_held_is_in_progress_and_touches_nothing(tmp_path: Path, clock: Clock) -> None:
    b = boundary(tmp_path, clock)
    b.records.grant("transfer_funds", args_hash(TRANSFER), NOW + 60, "k1")
    with b.records.hold("k1"):  # another delivery of k1 is deciding or running
        busy = b.call("transfer_funds", TRANSFER, key="k1")
        assert b.records.reconcile("k1", "confirmed") == "in_progress"
    assert (busy.status, busy.reason, busy.is_error) == ("in_progress", "in_progress", True)
    assert b.records.pending() == [] and counts(tmp_path) == {}
    assert b.call("transfer_funds", TRANSFER, key="k1").status == "ok"  # the grant was left for the call that holds it


def test_arguments_too_large_or_too_deep_are_refused_before_the_schema(tmp_path: Path, clock: Clock) -> None:
    b = boundary(tmp_path, clock)
    deep: object = "leaf"
    for _ in range(65):
        deep = [deep]
    big = {"key": "n", "text": "x" * (1 << 20)}
    for arguments, reason in ((deep, "arguments_too_deep"), (big, "arguments_too_large"), ({"key": "n", "text": float("nan")}, "invalid_arguments")):
        result = b.call("put_note", arguments, key="k1")
        assert (result.status, result.reason) == ("invalid_arguments", reason), result
    assert b.call("put_note", {"key": "n", "text": "x" * 1000}, key="k1").status == "ok"
    assert counts(tmp_path) == {"k1": (1, 1, 1)}


def test_keys_in_the_servers_namespace_are_refused_and_keyless_grants_go_to_keyless_calls(tmp_path: Path, clock: Clock) -> None:
    b = boundary(tmp_path, clock)
    assert (b.call("put_note", {"key": "n", "text": "t"}, key="srv:9").reason) == "reserved_key"
    keyless = b.call("transfer_funds", TRANSFER)
    keyed = b.call("transfer_funds", TRANSFER, key="k1")
    assert keyless.output["pending_id"] != keyed.output["pending_id"]
    assert b.records.grant_pending(keyless.output["pending_id"], NOW + 60) == {
        "pending_id": keyless.output["pending_id"], "tool": "transfer_funds", "args": TRANSFER, "args_hash": args_hash(TRANSFER), "key": None
    }  # fmt: skip
    assert b.call("transfer_funds", TRANSFER, key="k1").status == "approval_required"  # the keyless call's grant is not k1's
    ran = b.call("transfer_funds", TRANSFER)
    assert ran.status == "ok" and ran.call_id.startswith("srv:")
    assert [p["key"] for p in b.records.pending()] == ["k1"]


def test_a_session_holds_at_most_max_waiting_calls_and_never_answers_with_another_calls_id(tmp_path: Path, clock: Clock) -> None:
    b = boundary(tmp_path, clock)
    ids = [b.call("transfer_funds", {**TRANSFER, "amount_cents": 1 + i}, key=f"k{i}").output["pending_id"] for i in range(MAX_WAITING)]
    assert len(set(ids)) == MAX_WAITING and all(len(i.split("-")[-1]) == 32 for i in ids)  # 128 bits: nobody finds two calls sharing one
    assert b.call("transfer_funds", TRANSFER, key="one-more").reason == "too_many_waiting"
    assert b.call("transfer_funds", {**TRANSFER, "amount_cents": 1}, key="k0").reason == "approval_required"  # a waiting call still is
    with sqlite3.connect(tmp_path / "sessions" / "s1" / "boundary.sqlite") as conn:  # someone rewrites what a pending id names
        conn.execute("UPDATE pending_calls SET args_hash = 'planted' WHERE pending_id = ?", (ids[1],))
    assert b.call("transfer_funds", {**TRANSFER, "amount_cents": 2}, key="k1").reason == "pending_clash"
