"""The rules about inbound events: an event the contract refuses (delivered again as a duplicate, or new, or delivered
again, while the run is unfinished) that reached the framework as a new turn, ended the step in an error, or was
refused for a reason of the framework's own; and deduplication that came from contract glue."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from handwritten.engine import RUN_UNFINISHED
from harness.runner_side.judge.case import Case
from harness.runner_side.judge.facts import (
    at,
    call_claims,
    claim,
    mechanism,
    pause_claims,
    replay_claims,
    stated_after,
    status_claim,
    times,
)
from harness.runner_side.judge.registry import rule
from harness.runner_side.judge.said import Says, StepEnded, Waiting
from harness.runner_side.judge.values import Claim, Reason


def _refused_event(case: Case, fact: dict[str, Any]) -> str | None:
    """How the contract refuses this step's inbound event, when it does: ``again`` for an event delivered again that the
    engine recognised as a duplicate, ``unfinished`` for an event (new, or delivered again after such a refusal: it was
    never marked seen) while the engine's run was unfinished; None when the engine applied it."""
    engine = case.engine.steps[fact["step"]] if fact["step"] < len(case.engine.steps) else None
    if fact["action"] not in ("run", "deliver_again") or engine is None:
        return None
    if engine["refusal"] == RUN_UNFINISHED:
        return "unfinished"
    return "again" if fact["action"] == "deliver_again" and engine["refusal"] == "duplicate_event" else None


@rule('redelivered_as_new_turn', 'Does not recognise the same event delivered again, or takes a new one while the run is unfinished', stage='idempotency')
@rule('redelivery_failed', 'Fails on the same event delivered again, or on a new one while the run is unfinished', stage='idempotency')
@rule(
    'redelivery_refused_not_deduplicated',
    "The same event delivered again is refused for a reason of the framework's own, not as a duplicate",
    stage=None, consequence=True,
)
def redelivered_as_new_turn(case: Case) -> Iterator[Reason]:
    """An inbound event the contract refuses reached the framework as a new turn: the same event delivered again (not
    recognised as a duplicate: no deduplication, no refusal), or a new event while the run was unfinished (awaiting
    a decision or a reconcile, or crashed: the engine refuses it, ``run_unfinished``, and the framework took it)."""
    fw_asked = sum(case.implied["model"]["calls_per_turn"].values())
    engine_asked = sum(case.engine.observables["model"]["calls_per_turn"].values())
    for fact, step in zip(case.framework.facts, case.framework.steps, strict=True):
        kind = _refused_event(case, fact)
        if kind is None or fact.get("dedup_by") or (kind == "unfinished" and step["status"] == "refused"):
            continue  # a new event the framework refused too: the refusal, if it is another, is ``step_refused``'s
        if kind == "unfinished":
            yield _new_event_taken(case, fact, step, fw_asked, engine_asked)
            continue
        say = Says()
        tail, after = stated_after(case, fact["step"] + 1, say)
        if step["status"] == "refused":
            engine_refusal = case.engine.steps[fact["step"]]["refusal"] if fact["step"] < len(case.engine.steps) else None
            if step["refusal"] != engine_refusal:  # refused for a reason of its own, not as the duplicate it is
                yield _redelivery_refused(case, fact, step["refusal"], (tail, after), say)
            continue
        if step["status"] == "error":
            yield Reason("redelivery_failed", (
                f"the event delivered again at driver step {fact['step']} ended the step in an error ({fact.get('raised') or 'an exception'}) "
                f"where the engine recognised it as a duplicate{tail}{mechanism(case, 'message_assembly')}"
            ), (*status_claim(case, fact["step"], "error"), *after, *_redelivered(case)), say.all())
            continue
        ran = dict(fact.get("executed", {}))
        model = (f", and the model was asked {fw_asked} times in the run where the engine asked {engine_asked}" if fw_asked > engine_asked
                 else ", and the model was asked no more than the engine asked it")
        # a redelivery that paused again adds a pause the engine's run does not have (its pending calls are the step's own)
        paused = fact.get("pending", []) if step["status"] == "awaiting_approval" else []
        again = f" waiting for {', '.join(paused)}" if paused else ""
        yield Reason("redelivered_as_new_turn", (
            f"the event delivered again at driver step {fact['step']} was not recognised as a duplicate: "
            f"{say(StepEnded.of(case.framework, fact['step']))}{again}, executors entered in it: "
            f"{', '.join(f'{c} {times(n)}' for c, n in ran.items()) or 'none'}{model}{tail}"
            f"{mechanism(case, 'message_assembly')}"
        ), (*status_claim(case, fact["step"], step["status"]), *after, *_redelivered(case), *(c for cid in ran for c in call_claims(case, cid)),
            *(pause_claims(case, {fact["step"]}) if paused else ())), say.all())


def _new_event_taken(case: Case, fact: dict[str, Any], step: dict[str, Any], fw_asked: int, engine_asked: int) -> Reason:
    """A new inbound event the engine refused while its run was unfinished (``run_unfinished``), as the framework took it:
    ended in an error, or run as a new turn."""
    say = Says()
    tail, after = stated_after(case, fact["step"] + 1, say)
    before = case.framework.facts[fact["step"] - 1].get("pending", []) if fact["step"] else []
    waiting = f" while {', '.join(before)} waited for a decision in the framework's run" if before else ""
    event = "the new event" if fact["action"] == "run" else "the event delivered again (never marked seen: refused before)"
    said = f"{event} at driver step {fact['step']}, which the engine refused because its run was unfinished (run_unfinished),"
    if step["status"] == "error":
        return Reason("redelivery_failed", (
            f"{said} ended the step in an error ({fact.get('raised') or 'an exception'}){waiting}{tail}{mechanism(case, 'message_assembly')}"
        ), (*status_claim(case, fact["step"], "error"), *after), say.all())
    ran = dict(fact.get("executed", {}))
    paused = fact.get("pending", []) if step["status"] == "awaiting_approval" else []
    again = f" waiting for {', '.join(paused)}" if paused else ""
    model = (f", and the model was asked {fw_asked} times in the run where the engine asked {engine_asked}" if fw_asked > engine_asked
             else ", and the model was asked no more than the engine asked it")
    return Reason("redelivered_as_new_turn", (
        f"{said} was taken as a new turn{waiting}: {say(StepEnded.of(case.framework, fact['step']))}{again}, "
        f"executors entered in it: {', '.join(f'{c} {times(n)}' for c, n in ran.items()) or 'none'}{model}{tail}{mechanism(case, 'message_assembly')}"
    ), (*status_claim(case, fact["step"], step["status"]), *after, *(c for cid in ran for c in call_claims(case, cid)),
        *(pause_claims(case, {fact["step"]}) if paused else ())), say.all())


def _redelivery_refused(case: Case, fact: dict[str, Any], refusal: str, stated: tuple[str, tuple[Claim, ...]], say: Says) -> Reason:
    """An event delivered again that the framework refused with a refusal of its own (not the engine's ``duplicate_event``)
    and recorded no deduplication for: the refusal itself is ``step_refused``'s; what this says is that nothing recognised
    the duplicate, so its replay record names no deduplicator. It says what was waiting when the event came, from the
    facts of the step before."""
    tail, after = stated
    before = case.framework.facts[fact["step"] - 1].get("pending", []) if fact["step"] else []
    waiting = f"; {say(Waiting.of(case.framework, fact['step'] - 1))}" if before else ""
    return Reason("redelivery_refused_not_deduplicated", (
        f"the event delivered again at driver step {fact['step']} was refused by the framework ({refusal}{waiting}), not recognised as a "
        f"duplicate: no deduplication was recorded for it{tail}{mechanism(case, 'message_assembly')}"
    ), (*after, *_redelivered(case)), say.all())


def _redelivered(case: Case) -> tuple[Claim, ...]:
    """What an event delivered again and not recognised carries into: the results each call delivered and who
    deduplicated, where the facts give them (the effects are the calls' own, ``call_claims``)."""
    replay = case.implied["idempotent_replay"]
    return tuple(c for cid in (replay if isinstance(replay, dict) else ()) for c in replay_claims(case, cid))


@rule('deduplicated_by_glue', 'Deduplicates only through contract glue', stage=None)
def deduplicated_by_glue(case: Case) -> Iterator[Reason]:
    """The framework's run did not repeat an effect only because contract glue kept a record of it."""
    replay = case.implied["idempotent_replay"]
    glued = sorted(cid for cid, c in replay.items() if c["provided_by"] == "glue") if isinstance(replay, dict) else []
    if glued:
        steps = [f for f in case.framework.facts if f.get("dedup_by") == "glue"]
        yield Reason("deduplicated_by_glue", (
            f"the deduplication of {', '.join(glued)} (at {at(steps)}) came from contract glue (its records keyed by session and tool call "
            f"id), not from the framework{mechanism(case, 'persistence')}"
        ), tuple(claim(case, ("idempotent_replay", cid, "provided_by")) for cid in glued))

