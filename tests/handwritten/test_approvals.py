"""Approval tokens: the authority's verify() and the engine's approve() refuse every misuse with its own reason."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from handwritten.approvals import Approval, ApprovalAuthority, Refusal
from handwritten.canonical import args_hash, canonical_json
from handwritten.checkpoint import AgentState, PendingCall
from handwritten.engine import RunResult
from handwritten.events import ApprovalGranted, ApprovalRefused
from harness.column_side.approver import APPROVAL_SECRET, CLOCK_START, FOREIGN_SECRET, TOKEN_TTL_S
from tests.handwritten.rig import SESSION, USER_INPUT

TRANSFER = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
DIGEST = args_hash(TRANSFER)


def _authority(secret=APPROVAL_SECRET, now=CLOCK_START):
    return ApprovalAuthority(secret, clock=lambda: now, new_token_id=lambda: "tok-1")


def _token(secret=APPROVAL_SECRET, now=CLOCK_START, session=SESSION, tool="transfer_funds", digest=DIGEST, call="c1"):
    return _authority(secret, now).issue(session, call, tool, digest, TOKEN_TTL_S)


def _b64(payload_text: str) -> str:
    return base64.urlsafe_b64encode(payload_text.encode()).decode().rstrip("=")


def _signed(body: str) -> str:
    """A body signed with the right secret (so only what is inside it can be wrong)."""
    return f"{body}.{hmac.new(APPROVAL_SECRET, body.encode(), hashlib.sha256).hexdigest()}"


def _tampered(token: str) -> str:
    body, _, signature = token.partition(".")
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    payload["args_hash"] = args_hash({**TRANSFER, "amount_cents": 999_999})
    return f"{_b64(canonical_json(payload))}.{signature}"


VALID = Approval("tok-1", SESSION, "transfer_funds", "c1", DIGEST, CLOCK_START + TOKEN_TTL_S)

# case: (token, clock at verification, expected verdict); verified against (SESSION, c1, transfer_funds, DIGEST)
VERIFY_CASES = {
    "valid": (lambda: _token(), CLOCK_START, VALID),
    "valid until just before expiry": (lambda: _token(), CLOCK_START + TOKEN_TTL_S - 0.001, VALID),
    "other args": (lambda: _token(digest=args_hash({**TRANSFER, "amount_cents": 2501})), CLOCK_START, Refusal.OTHER_ARGS),
    "other session": (lambda: _token(session="sess-2"), CLOCK_START, Refusal.OTHER_SESSION),
    "other tool": (lambda: _token(tool="send_email"), CLOCK_START, Refusal.OTHER_TOOL),
    "other call, same tool and args": (lambda: _token(call="c2"), CLOCK_START, Refusal.OTHER_CALL),
    "expired at the expiry instant": (lambda: _token(), CLOCK_START + TOKEN_TTL_S, Refusal.EXPIRED),
    "expired long ago": (lambda: _token(now=CLOCK_START - 10 * TOKEN_TTL_S), CLOCK_START, Refusal.EXPIRED),
    "tampered payload, old signature": (lambda: _tampered(_token()), CLOCK_START, Refusal.FORGED),
    "signed with another secret": (lambda: _token(secret=FOREIGN_SECRET), CLOCK_START, Refusal.FORGED),
    "signature of another token": (
        lambda: _token().partition(".")[0] + "." + _token(session="sess-2").partition(".")[2], CLOCK_START, Refusal.FORGED,
    ),
    "garbage": (lambda: "this is not a token", CLOCK_START, Refusal.MALFORMED),
    "empty": (lambda: "", CLOCK_START, Refusal.MALFORMED),
    "no signature": (lambda: _token().partition(".")[0] + ".", CLOCK_START, Refusal.MALFORMED),
    "no body": (lambda: "." + _token().partition(".")[2], CLOCK_START, Refusal.MALFORMED),
    "signed, body not base64 JSON": (lambda: _signed("@@@"), CLOCK_START, Refusal.MALFORMED),
    "signed, payload not an object": (lambda: _signed(_b64("[1, 2]")), CLOCK_START, Refusal.MALFORMED),
    "signed, payload missing fields": (lambda: _signed(_b64('{"token_id": "t"}')), CLOCK_START, Refusal.MALFORMED),
}


@pytest.mark.parametrize(("make_token", "now", "expected"), VERIFY_CASES.values(), ids=VERIFY_CASES.keys())
def test_verify(make_token, now, expected):
    assert _authority(now=now).verify(make_token(), SESSION, "c1", "transfer_funds", DIGEST) == expected


def test_every_misuse_has_its_own_reason():
    reasons = {v for _, _, v in VERIFY_CASES.values() if isinstance(v, Refusal)}
    assert reasons == {Refusal.OTHER_ARGS, Refusal.OTHER_SESSION, Refusal.OTHER_TOOL, Refusal.OTHER_CALL, Refusal.EXPIRED, Refusal.FORGED, Refusal.MALFORMED}
    assert len({r.value for r in Refusal}) == len(Refusal)


def test_empty_secret_is_refused():
    with pytest.raises(ValueError) as info:
        ApprovalAuthority(b"", clock=lambda: CLOCK_START, new_token_id=lambda: "t")
    assert str(info.value) == "approval secret must not be empty"


def test_non_ascii_garbage_is_a_refusal_not_an_exception():
    assert _authority().verify("abc.d\u00e9f", SESSION, "c1", "transfer_funds", DIGEST) in (Refusal.MALFORMED, Refusal.FORGED)


# -- the engine ---------------------------------------------------------------------------

SCRIPT = [
    {"tool_calls": [{"id": "c1", "name": "transfer_funds", "arguments": TRANSFER}]},
    {"text": "Sent."},
    # only reached by a second user event in the same session: an identical second transfer
    {"tool_calls": [{"id": "c2", "name": "transfer_funds", "arguments": TRANSFER}]},
    {"text": "Second one sent."},
]


def _pending(call_id: str) -> PendingCall:
    return PendingCall(call_id, "transfer_funds", TRANSFER, DIGEST, f"{SESSION}/{call_id}")


def _assistant_call(call_id: str) -> dict:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "transfer_funds", "arguments": canonical_json(TRANSFER)}}],
    }


def _tool_message(call_id: str) -> dict:
    content = canonical_json({"amount_cents": 2500, "status": "sent", "transfer_id": f"tr-{call_id}"})
    return {"role": "tool", "tool_call_id": call_id, "name": "transfer_funds", "content": content}


AWAITING_C1 = AgentState(
    session_id=SESSION,
    event_id="e1",
    seen_event_ids=("e1",),
    step=1,
    status="awaiting_approval",
    messages=({"role": "user", "content": USER_INPUT}, _assistant_call("c1")),
    turn_call_ids=("c1",),
    queue=(_pending("c1"),),
    pending_approval=(_pending("c1"),),
)

ONE_EFFECT = {"tool": "transfer_funds", "tool_entries": 1, "executor_entries": 1, "effects": 1}


@pytest.fixture(params=["memory", "sqlite"])
def rig(request, make_rig):
    return make_rig(SCRIPT, ["transfer_funds"], store=request.param)


def test_high_risk_call_waits_for_approval_with_nothing_run(rig):
    result = rig.engine.run(SESSION, USER_INPUT, "e1")
    assert (result, rig.checkpoints.load(SESSION), rig.ledger()) == (
        RunResult("awaiting_approval", AWAITING_C1, pending=(_pending("c1"),)),
        AWAITING_C1,
        {},
    )


def _approved_c1_then_second_transfer(rig) -> RunResult:
    """c1 approved with a valid token and run; a second event asks for the identical transfer c2."""
    rig.engine.run(SESSION, USER_INPUT, "e1")
    token = rig.token("transfer_funds", TRANSFER)
    assert rig.engine.approve(SESSION, "c1", token).status == "completed"
    rig.approver.last_used = token
    return rig.engine.run(SESSION, "And once more, please.", "e2")


# misuse -> (refusal, pending call it is presented for, ledger after the refusal)
ENGINE_MISUSES = {
    "other_args": ("other_args", "c1", {}),
    "other_session": ("other_session", "c1", {}),
    "expired": ("expired", "c1", {}),
    "forged": ("forged", "c1", {}),
    "reused": ("reused", "c2", {"c1": ONE_EFFECT}),
}


@pytest.mark.parametrize(("misuse", "refusal", "call_id", "ledger"), [(k, *v) for k, v in ENGINE_MISUSES.items()], ids=ENGINE_MISUSES.keys())
def test_engine_refuses_each_misuse_and_keeps_the_call_pending(rig, misuse, refusal, call_id, ledger):
    awaiting = _approved_c1_then_second_transfer(rig) if misuse == "reused" else rig.engine.run(SESSION, USER_INPUT, "e1")
    assert (awaiting.status, awaiting.pending) == ("awaiting_approval", (_pending(call_id),))
    model_turns = rig.model_turns_asked()

    result = rig.engine.approve(SESSION, call_id, rig.misuse(misuse, "transfer_funds", TRANSFER))

    assert result == RunResult("refused", awaiting.state, pending=(_pending(call_id),), refusal=refusal)
    assert rig.checkpoints.load(SESSION) == awaiting.state  # still awaiting_approval, call still pending
    assert rig.trace[-1] == ApprovalRefused(call_id, refusal)
    assert rig.ledger() == ledger  # the refused call made no side effect
    assert rig.model_turns_asked() == model_turns  # and the model was not asked anything


def test_token_expires_on_the_engine_clock(rig):
    rig.engine.run(SESSION, USER_INPUT, "e1")
    token = rig.token("transfer_funds", TRANSFER)
    rig.clock.now += TOKEN_TTL_S
    assert (rig.engine.approve(SESSION, "c1", token), rig.ledger()) == (
        RunResult("refused", AWAITING_C1, pending=(_pending("c1"),), refusal="expired"),
        {},
    )


def test_valid_approval_after_misuses_runs_the_call_exactly_once(rig):
    rig.engine.run(SESSION, USER_INPUT, "e1")
    refusals = [rig.engine.approve(SESSION, "c1", rig.misuse(m, "transfer_funds", TRANSFER)).refusal for m in ("other_args", "other_session", "expired", "forged")]
    result = rig.engine.approve(SESSION, "c1", rig.token("transfer_funds", TRANSFER))

    done = AWAITING_C1.evolve(
        status="completed",
        step=2,
        messages=AWAITING_C1.messages + (_tool_message("c1"), {"role": "assistant", "content": "Sent."}),
        turn_call_ids=(),
        queue=(),
        pending_approval=(),
        final_text="Sent.",
    )
    assert (refusals, result, rig.ledger(), rig.model_turns_asked()) == (
        ["other_args", "other_session", "expired", "forged"],
        RunResult("completed", done, final_text="Sent."),
        {"c1": ONE_EFFECT},
        [0, 1],
    )
    # the token id used comes from the approver's sequence: tokens 1..4 were the misuses
    assert [e for e in rig.trace if isinstance(e, ApprovalGranted)] == [ApprovalGranted("c1", "tok-5")]


def test_reused_token_is_refused_for_an_identical_second_transfer(rig):
    awaiting = _approved_c1_then_second_transfer(rig)
    reused = rig.engine.approve(SESSION, "c2", rig.approver.last_used)
    assert (reused, rig.ledger()) == (RunResult("refused", awaiting.state, pending=(_pending("c2"),), refusal="reused"), {"c1": ONE_EFFECT})

    fresh = rig.engine.approve(SESSION, "c2", rig.token("transfer_funds", TRANSFER, call_id="c2"))
    assert (fresh.status, fresh.final_text, rig.ledger()) == ("completed", "Second one sent.", {"c1": ONE_EFFECT, "c2": ONE_EFFECT})


# situation -> call id approved; every one is refused "not_pending" without touching the state
NOT_PENDING = {
    "unknown call id while awaiting": ("awaiting", "c9"),
    "call already approved and run": ("completed", "c1"),
    "call of a later turn not asked yet": ("completed", "c2"),
}


@pytest.mark.parametrize(("situation", "call_id"), NOT_PENDING.values(), ids=NOT_PENDING.keys())
def test_approve_of_a_call_that_is_not_pending_is_refused(rig, situation, call_id):
    state = rig.engine.run(SESSION, USER_INPUT, "e1").state
    if situation == "completed":
        state = rig.engine.approve(SESSION, "c1", rig.token("transfer_funds", TRANSFER)).state
    ledger = rig.ledger()

    result = rig.engine.approve(SESSION, call_id, rig.token("transfer_funds", TRANSFER, call_id=call_id))

    assert (result, rig.checkpoints.load(SESSION), rig.ledger(), rig.trace[-1]) == (
        RunResult("refused", state, pending=state.pending_approval, refusal="not_pending"),
        state,
        ledger,
        ApprovalRefused(call_id, "not_pending"),
    )


def test_engine_refuses_non_ascii_garbage_token(rig):
    rig.engine.run(SESSION, USER_INPUT, "e1")
    assert rig.engine.approve(SESSION, "c1", "abc.d\u00e9f") == RunResult("refused", AWAITING_C1, pending=(_pending("c1"),), refusal="malformed")
