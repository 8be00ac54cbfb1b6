"""Engine behaviours the scenarios do not show directly: the step bound, read-only retries,
reconciliation refusals and duplicate inbound events."""

from __future__ import annotations

import pytest

from handwritten.canonical import args_hash, canonical_json
from handwritten.checkpoint import AgentState, PendingCall
from handwritten.engine import RunResult
from handwritten.events import (
    DuplicateEvent,
    Reconciled,
    StoppedMaxSteps,
    ToolAttemptFailed,
    ToolResult,
)
from handwritten.idempotency import Record, RecordState
from harness.scenarios import Fault
from tests.handwritten.rig import SESSION, USER_INPUT

OSLO = {"city": "Oslo"}
OSLO_WEATHER = canonical_json({"city": "Oslo", "forecast": "snow", "temp_c": 23})
USER = {"role": "user", "content": USER_INPUT}


def call_turn(call_id: str, name: str, arguments) -> dict:
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def assistant_call(call_id: str, name: str, arguments) -> dict:
    text = arguments if isinstance(arguments, str) else canonical_json(arguments)
    return {"role": "assistant", "content": None, "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}]}


def tool_message(call_id: str, name: str, content: str) -> dict:
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": content}


def weather_transcript(turns: int) -> tuple[dict, ...]:
    messages: tuple[dict, ...] = (USER,)
    for n in range(1, turns + 1):
        messages += (assistant_call(f"c{n}", "get_weather", OSLO), tool_message(f"c{n}", "get_weather", OSLO_WEATHER))
    return messages


# -- the step bound ------------------------------------------------------------------------------

ENDLESS_WEATHER = [call_turn(f"c{n}", "get_weather", OSLO) for n in range(1, 7)]


@pytest.mark.parametrize("max_steps", [1, 2, 3])
def test_max_steps_stops_without_raising(make_rig, max_steps):
    rig = make_rig(ENDLESS_WEATHER, ["get_weather"], max_steps=max_steps)
    result = rig.engine.run(SESSION, USER_INPUT, "e1")
    stopped = AgentState(
        session_id=SESSION,
        event_id="e1",
        seen_event_ids=("e1",),
        step=max_steps,
        status="stopped_max_steps",
        messages=weather_transcript(max_steps),
        stop_reason=f"max_steps={max_steps} reached",
    )
    assert (result, rig.checkpoints.load(SESSION), rig.model_turns_asked(), rig.trace[-1]) == (
        RunResult("stopped_max_steps", stopped),
        stopped,
        list(range(max_steps)),
        StoppedMaxSteps(max_steps),
    )
    # a stopped run stays stopped on resume: the model is not asked again
    assert (rig.engine.resume(SESSION), rig.model_turns_asked()) == (RunResult("stopped_max_steps", stopped), list(range(max_steps)))


# -- read-only failures are retried, then handed to the model as an error -------------------------

INJECTED = "InjectedToolError: injected failure at tool.raise_before_effect"
HUGE = {"a": 10**400, "b": 1, "op": "div"}  # the calculator's own arithmetic overflows: a real, repeatable tool error
OVERFLOW = "OverflowError: integer division result too large for a float"

# case: (tool, arguments, injected failures, failed attempts, tool message content, ledger row of c1)
RETRIES = {
    "one failure, then ok": ("get_weather", OSLO, 1, [(1, INJECTED)], OSLO_WEATHER, (2, 2)),
    "two failures, then ok": ("get_weather", OSLO, 2, [(1, INJECTED), (2, INJECTED)], OSLO_WEATHER, (3, 3)),
    "three failures: an error for the model": (
        "get_weather",
        OSLO,
        3,
        [(1, INJECTED), (2, INJECTED), (3, INJECTED)],
        canonical_json({"error": f"failed after 3 attempts: {INJECTED}"}),
        (3, 3),
    ),
    "a tool that always raises": (
        "calculator",
        HUGE,
        0,
        [(1, OVERFLOW), (2, OVERFLOW), (3, OVERFLOW)],
        canonical_json({"error": f"failed after 3 attempts: {OVERFLOW}"}),
        (3, 3),
    ),
}


@pytest.mark.parametrize(("tool", "arguments", "failures", "attempts", "content", "entries"), RETRIES.values(), ids=RETRIES.keys())
def test_read_only_failures_are_retried_then_returned_as_an_error_message(make_rig, tool, arguments, failures, attempts, content, entries):
    script = [call_turn("c1", tool, arguments), {"text": "Done."}]
    rig = make_rig(script, [tool], faults=[Fault("tool.raise_before_effect", call_id="c1")] * failures)
    result = rig.engine.run(SESSION, USER_INPUT, "e1")
    # the transcript the model received on its second turn, then its answer
    transcript = (USER, assistant_call("c1", tool, arguments), tool_message("c1", tool, content), {"role": "assistant", "content": "Done."})
    status = "error" if len(attempts) == 3 else "ok"
    assert (result.status, result.final_text, result.state.messages, rig.model_turns_asked()) == ("completed", "Done.", transcript, [0, 1])
    assert [e for e in rig.trace if isinstance(e, (ToolAttemptFailed, ToolResult))] == [
        *(ToolAttemptFailed("c1", n, error) for n, error in attempts),
        ToolResult("c1", tool, status, content),
    ]
    assert rig.ledger() == {"c1": {"tool": tool, "tool_entries": entries[0], "executor_entries": entries[1], "effects": 0}}


# -- reconciliation ---------------------------------------------------------------------------

NOTE = {"key": "k1", "text": "remember"}
NOTE_CALL = PendingCall("c1", "put_note", NOTE, args_hash(NOTE), f"{SESSION}/c1")
NOTE_SCRIPT = [call_turn("c1", "put_note", NOTE), {"text": "Noted."}]


def _uncertain_rig(make_rig):
    rig = make_rig(NOTE_SCRIPT, ["put_note"], store="sqlite", faults=[Fault("tool.timeout_after_effect", call_id="c1")])
    result = rig.engine.run(SESSION, USER_INPUT, "e1")
    assert (result.status, result.state.pending_intent, rig.idempotency.get(NOTE_CALL.idempotency_key)) == (
        "reconcile_required",
        NOTE_CALL,
        Record(NOTE_CALL.idempotency_key, NOTE_CALL.args_hash, RecordState.UNCERTAIN, 1),
    )
    return rig, result.state


ONE_NOTE = {"c1": {"tool": "put_note", "tool_entries": 1, "executor_entries": 1, "effects": 1}}


@pytest.mark.parametrize("call_id", ["c9", "C1", ""])
def test_reconcile_with_a_wrong_call_id_is_refused(make_rig, call_id):
    rig, stopped = _uncertain_rig(make_rig)
    result = rig.engine.reconcile_uncertain(SESSION, call_id, "confirmed")
    assert (result, rig.checkpoints.load(SESSION), rig.idempotency.get(NOTE_CALL.idempotency_key), rig.ledger(), rig.model_turns_asked()) == (
        RunResult("refused", stopped, refusal=f"no uncertain call {call_id!r} to reconcile"),
        stopped,
        Record(NOTE_CALL.idempotency_key, NOTE_CALL.args_hash, RecordState.UNCERTAIN, 1),
        ONE_NOTE,
        [0],
    )


def test_reconcile_on_a_session_with_nothing_uncertain_is_refused(make_rig):
    rig = make_rig(NOTE_SCRIPT, ["put_note"])
    done = rig.engine.run(SESSION, USER_INPUT, "e1").state
    assert rig.engine.reconcile_uncertain(SESSION, "c1", "confirmed") == RunResult("refused", done, final_text=None, refusal="no uncertain call 'c1' to reconcile")


def test_reconcile_with_an_unknown_outcome_is_a_value_error(make_rig):
    rig, stopped = _uncertain_rig(make_rig)
    with pytest.raises(ValueError) as info:
        rig.engine.reconcile_uncertain(SESSION, "c1", "maybe")
    assert (str(info.value), rig.checkpoints.load(SESSION)) == ("reconcile outcome must be 'confirmed' or 'not_executed', not 'maybe'", stopped)


# outcome -> (tool message the model sees, ledger afterwards, record afterwards)
RECONCILE = {
    "confirmed": (
        "reconciled",
        canonical_json({"reconciled": "confirmed"}),
        ONE_NOTE,
        Record(NOTE_CALL.idempotency_key, NOTE_CALL.args_hash, RecordState.COMPLETED, 1, result='{"reconciled":"confirmed"}', resolution="confirmed"),
    ),
    "not_executed": (
        "ok",
        canonical_json({"key": "k1", "stored": True}),
        {"c1": {"tool": "put_note", "tool_entries": 2, "executor_entries": 2, "effects": 2}},
        Record(NOTE_CALL.idempotency_key, NOTE_CALL.args_hash, RecordState.COMPLETED, 2, result='{"key":"k1","stored":true}', resolution="not_executed"),
    ),
}


@pytest.mark.parametrize(("outcome", "status", "content", "ledger", "record"), [(k, *v) for k, v in RECONCILE.items()], ids=RECONCILE.keys())
def test_reconcile_settles_the_uncertain_call(make_rig, outcome, status, content, ledger, record):
    rig, _ = _uncertain_rig(make_rig)
    result = rig.engine.reconcile_uncertain(SESSION, "c1", outcome)
    assert (result.status, result.state.messages[2], rig.ledger(), rig.idempotency.get(NOTE_CALL.idempotency_key)) == (
        "completed",
        tool_message("c1", "put_note", content),
        ledger,
        record,
    )
    assert [e for e in rig.trace if isinstance(e, (Reconciled, ToolResult))][-2:] == [Reconciled("c1", outcome), ToolResult("c1", "put_note", status, content)]


# -- duplicate inbound events -------------------------------------------------------------------

HIGH_RISK_SCRIPT = [call_turn("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 100}), {"text": "Sent."}]

# situation -> (script, tools, max_steps, session status when the event comes again)
DUPLICATES = {
    "after completion": (NOTE_SCRIPT, ["put_note"], 8, "completed"),
    "while awaiting approval": (HIGH_RISK_SCRIPT, ["transfer_funds"], 8, "awaiting_approval"),
    "after the step bound": (ENDLESS_WEATHER, ["get_weather"], 1, "stopped_max_steps"),
}


@pytest.mark.parametrize(("script", "tools", "max_steps", "session_status"), DUPLICATES.values(), ids=DUPLICATES.keys())
@pytest.mark.parametrize("store", ["memory", "sqlite"])
def test_duplicate_event_is_refused_without_a_model_call(make_rig, store, script, tools, max_steps, session_status):
    rig = make_rig(script, tools, store=store, max_steps=max_steps)
    first = rig.engine.run(SESSION, USER_INPUT, "e1")
    turns, ledger = rig.model_turns_asked(), rig.ledger()

    again = rig.engine.run(SESSION, USER_INPUT, "e1")

    assert first.state.status == session_status
    assert (again, rig.checkpoints.load(SESSION), rig.model_turns_asked(), rig.ledger(), rig.trace[-1]) == (
        RunResult("refused", first.state, final_text=first.state.final_text, pending=first.state.pending_approval, refusal="duplicate_event"),
        first.state,
        turns,
        ledger,
        DuplicateEvent("e1"),
    )


def test_new_event_on_a_session_awaiting_approval_is_refused_and_not_marked_seen(make_rig):
    rig = make_rig(HIGH_RISK_SCRIPT, ["transfer_funds"])
    awaiting = rig.engine.run(SESSION, USER_INPUT, "e1").state
    refused = rig.engine.run(SESSION, "something else", "e2")
    assert (refused.status, refused.refusal, refused.state, rig.checkpoints.load(SESSION), rig.model_turns_asked()) == (
        "refused", "run_unfinished", awaiting, awaiting, [0],
    )
    again = rig.engine.run(SESSION, "something else", "e2")  # not marked seen: refused the same way, not as a duplicate
    assert (again.status, again.refusal) == ("refused", "run_unfinished")


# -- bugs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("literal", ["NaN", "Infinity"])
def test_non_json_number_in_arguments_is_a_schema_error_for_the_model(make_rig, literal):
    arguments = f'{{"a": {literal}, "b": 1, "op": "add"}}'
    rig = make_rig([call_turn("c1", "calculator", arguments), {"text": "Sorry."}], ["calculator"])
    result = rig.engine.run(SESSION, USER_INPUT, "e1")
    assert (result.status, result.final_text, rig.ledger()) == ("completed", "Sorry.", {})
