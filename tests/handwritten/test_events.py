"""Trace events: every registered kind round-trips through to_json/from_json (and JSON text)."""

from __future__ import annotations

import json

import pytest

from handwritten import events as ev
from handwritten.canonical import canonical_json

# One instance of every event kind; a kind added to the registry without a row here fails the coverage test.
INSTANCES = [
    ev.RunStarted("sess-1", "e1"),
    ev.DuplicateEvent("e1"),
    ev.EventRefused("e2", "awaiting_approval"),
    ev.Resumed("before_execute", "c1", "put_note", "ab" * 32, ("c0", "c1")),
    ev.Resumed("model_turn", None, None, None, ()),
    ev.ModelTurn(2, ("c1", "c2"), ("get_weather", "put_note"), None),
    ev.ModelTurn(3, (), (), "All done \u2713"),
    ev.SchemaRejected("c1", "transfer_funds", ("amount_cents: '5' is not of type 'integer'", "(arguments): 'to_account' is a required property")),
    ev.CallAdmitted("c1", "put_note", "cd" * 32, "run_idempotent"),
    ev.ApprovalRequested("c1", "transfer_funds", "ef" * 32),
    ev.ApprovalGranted("c1", "tok-1"),
    ev.ApprovalRefused("c1", "forged"),
    ev.CallRejected("c1", "duplicate transfer"),
    ev.IntentCheckpointed("c1", "sess-1/c1"),
    ev.IntentCheckpointed("c2", None),
    ev.ToolAttemptFailed("c1", 2, "InjectedToolError: injected failure at tool.raise_before_effect"),
    ev.ToolResult("c1", "get_weather", "ok", canonical_json({"city": "Oslo", "forecast": "snow"})),
    ev.UncertainOutcome("c1", "timed out after the executor was entered: TimeoutError: x"),
    ev.Reconciled("c1", "confirmed"),
    ev.Finished(""),
    ev.StoppedMaxSteps(2),
    ev.ModelUnavailableStop(1, ("500", "reset"), "failed after 2 attempts"),
    ev.BoundaryCall("srv:1", "transfer_funds", "approval_required", "approval_required"),
    ev.AnswerWithdrawn("srv:2", "put_note"),
]


def test_instances_cover_every_registered_kind():
    assert {type(e).kind for e in INSTANCES} == set(ev.Event._registry)
    assert all(ev.Event._registry[type(e).kind] is type(e) for e in INSTANCES)


@pytest.mark.parametrize("event", INSTANCES, ids=lambda e: f"{type(e).kind}:{e}"[:60])
def test_round_trip(event):
    data = event.to_json()
    through_text = json.loads(canonical_json(data))
    assert (ev.Event.from_json(data), ev.Event.from_json(through_text), through_text["kind"]) == (event, event, type(event).kind)


def test_to_json_is_flat_and_tagged():
    assert ev.Resumed("after_execute", "c1", "put_note", "h", ("c1",)).to_json() == {
        "kind": "resumed",
        "position": "after_execute",
        "pending_call_id": "c1",
        "pending_tool": "put_note",
        "pending_args_hash": "h",
        "approved_call_ids": ["c1"],
    }


@pytest.mark.parametrize("data", [{"kind": "no_such_kind", "event_id": "e1"}, {"event_id": "e1"}, {"kind": "event"}], ids=["unknown", "missing", "base"])
def test_unknown_kind_is_a_value_error(data):
    with pytest.raises(ValueError) as info:
        ev.Event.from_json(data)
    assert str(info.value) == f"unknown trace event kind: {data.get('kind')!r}"
