"""The rules about what a decision did besides deciding its call: let another call run, raise, or wait for the rest of
its turn."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from handwritten.tools import RiskClass
from harness.runner_side.judge.case import Case
from harness.runner_side.judge.facts import (
    call_claims,
    claim,
    mechanism,
    replay_claims,
    risk_of,
    stated_after,
    status_claim,
    tool_of,
)
from harness.runner_side.judge.registry import rule
from harness.runner_side.judge.said import Answered, Entered, Says
from harness.runner_side.judge.values import Reason


@rule('decision_reached_other_call', 'Applies a decision about one call to another call', stage='approval')
def decision_reached_other_call(case: Case) -> Iterator[Reason]:
    """A decision about one call let another call run."""
    for fact in case.framework.facts:
        driven = case.scenario.driver[fact["step"]]
        if fact["action"] not in ("approve", "misuse_token", "reject") or not driven.get("call_id"):
            continue
        engine_effects = case.engine.facts[fact["step"]].get("effects", {}) if fact["step"] < len(case.engine.facts) else {}
        held = {c for f in case.framework.facts if f["step"] < fact["step"] for c in f.get("held", ())}  # decided, handed over now
        others = {c: n for c, n in fact.get("effects", {}).items()
                  if c != driven["call_id"] and c not in held and risk_of(case.scenario, c) == RiskClass.HIGH_RISK.value and n > engine_effects.get(c, 0)}
        if others:
            say = Says()
            tail, after = stated_after(case, fact["step"], say)
            yield Reason("decision_reached_other_call", (
                f"the {fact['action']} of {driven['call_id']} at driver step {fact['step']} ran "
                f"{', '.join(f'{c} ({tool_of(case.scenario, c)}, {n} effects)' for c, n in others.items())}"
                f"{tail}{mechanism(case, 'approval')}"
            ), (*after, *(c for cid in others for c in call_claims(case, cid))), say.all())


@rule('decision_raised', 'Answers a decision with an exception that ends the run', stage=None, consequence=True)
def decision_raised(case: Case) -> Iterator[Reason]:
    """A decision the framework answered with an exception (one its MAPPING.md declares): the run ended ``error`` there
    where the engine refused the decision or went on."""
    for fact, step in zip(case.framework.facts, case.framework.steps, strict=True):
        if fact["action"] not in ("misuse_token", "approve", "reject") or not fact.get("raised"):
            continue
        engine = case.engine.steps[fact["step"]]
        then = f"the engine refused it ({engine['refusal']})" if engine["refusal"] else f"the engine's step ended {engine['status']}"
        say = Says()
        tail, after = stated_after(case, fact["step"], say)
        yield Reason("decision_raised", (
            f"the {fact['action'].replace('misuse_token', 'misused approval')} at driver step {fact['step']} ended in {fact['raised']}: the step "
            f"ended {step['status']}, {then}{tail}{mechanism(case, 'approval')}"
        ), (*status_claim(case, fact["step"], step["status"]), *after), say.all())


@rule('held_for_turn', "Gets none of a turn's decisions until every call of the turn is decided", stage=None, consequence=True)
def held_for_turn(case: Case) -> Iterator[Reason]:
    """A framework that takes a turn's decisions at once got none of them while a call of the turn was still undecided:
    the human's decisions held for it leave those calls undecided at the end where the engine had answered them."""
    fw, engine = case.implied["pre_approval_state"], case.engine.observables["pre_approval_state"]
    if not isinstance(fw, dict) or not isinstance(engine, dict):
        return
    held = {c: f["step"] for f in case.framework.facts for c in f.get("held", ())}
    for fact, step in zip(case.framework.facts, case.framework.steps, strict=True):
        named, refusal = case.scenario.driver[fact["step"]].get("call_id"), case.engine.steps[fact["step"]]["refusal"]
        if named in fact.get("held", ()) and refusal and step["status"] == "awaiting_approval":
            yield Reason("held_for_turn", (
                f"the {fact['action'].replace('misuse_token', 'approval')} for {named} at driver step {fact['step']} was held with its turn "
                f"(the framework takes a turn's decisions at once; the engine refused it: {refusal}), so nothing ran and the step ended awaiting_approval"
            ), status_claim(case, fact["step"], "awaiting_approval"))
    extra = [c for c in fw["undecided_at_end"] if c in held and c not in engine["undecided_at_end"]]
    if extra:
        waits = ", ".join(c for c in fw["undecided_at_end"] if c not in held) or "nothing"
        yield Reason("held_for_turn", (
            f"the framework takes a turn's decisions at once: the decisions for {', '.join(f'{c} (driver step {held[c]})' for c in extra)} were held "
            f"with the turn, which still waits for {waits}, so the framework never got them (undecided at the end: {', '.join(fw['undecided_at_end'])}; "
            f"engine: {', '.join(engine['undecided_at_end']) or 'none'})"
        ), (claim(case, ("pre_approval_state", "undecided_at_end")),))



@rule('decision_held_by_framework', "Answers no call of a turn, a rejected one included, until every call of the turn is decided", stage=None, consequence=True)
def decision_held_by_framework(case: Case) -> Iterator[Reason]:
    """A rejection of a call the framework waited on, which it then no longer waited on and never answered: it holds a decided call
    with its turn while another call of the turn waits, so the call is undecided at the end where the engine answered it."""
    fw, engine = case.implied["pre_approval_state"], case.engine.observables["pre_approval_state"]
    if not isinstance(fw, dict) or not isinstance(engine, dict):
        return
    answered = {r[0] for f in case.framework.facts for r in f.get("results", ())}
    for before, fact in itertools.pairwise(case.framework.facts):
        named = case.scenario.driver[fact["step"]].get("call_id")
        if (fact["action"] != "reject" or named not in before.get("pending", ()) or named in fact.get("pending", ()) or named in fact.get("held", ())
                or named in answered or named not in fw["undecided_at_end"] or named in engine["undecided_at_end"]):
            continue
        if not (waits := [c for c in fw["undecided_at_end"] if c != named]):
            continue  # no other call of the turn keeps it waiting: another rule says what happened to the rejection
        yield Reason("decision_held_by_framework", (
            f"the reject of {named} at driver step {fact['step']} went to the framework, which stopped waiting on {named} and never answered it: "
            f"it answers no call of a turn until every call of the turn is decided, and the turn still waits for {', '.join(waits)} "
            f"(undecided at the end: {', '.join(fw['undecided_at_end'])}; engine: {', '.join(engine['undecided_at_end']) or 'none'}){mechanism(case, 'approval')}"
        ), (claim(case, ("pre_approval_state", "undecided_at_end")),))


@rule('rejection_kept_after_restore', 'Answers an approval given after a restore with the rejection given before it', stage=None)
def rejection_kept_after_restore(case: Case) -> Iterator[Reason]:
    """A call rejected, then a restore of a state saved before the rejection, then an approval of the call: the engine
    records no rejection under the call's key (docs/contract.md), so the restored pause waits again and the approval
    runs the call; the framework answered the approval with the earlier rejection's result (the same status, the call
    never entered) where the engine's approval ran it."""
    fw, driver = case.framework, case.scenario.driver
    for fact, step in zip(fw.facts, fw.steps, strict=True):
        if fact["action"] != "approve" or step["status"] == "refused":
            continue
        cid, at = driver[fact["step"]]["call_id"], fact["step"]
        restore = next((f["step"] for f in reversed(fw.facts[:at]) if f["action"] == "restore"), None)
        rejected = next((f for f in reversed(fw.facts[:restore or 0]) if f["action"] == "reject" and driver[f["step"]]["call_id"] == cid), None)
        if restore is None or rejected is None or fact.get("entered", {}).get(cid) or not case.engine.facts[at].get("entered", {}).get(cid):
            continue
        before = {r[1] for r in rejected.get("results", ()) if r[0] == cid}
        now = [r[1] for r in fact.get("results", ()) if r[0] == cid and r[1] in before]
        if not now:
            continue
        say = Says()
        yield Reason("rejection_kept_after_restore", (
            f"{cid} was rejected at driver step {rejected['step']} ({say(Answered(rejected['step'], cid, now[0]))}); after the restore at driver step "
            f"{restore}, the approval of {cid} at driver step {at} was answered with that rejection again: the framework "
            f"{say(Answered(at, cid, now[0]))}, {say(Entered.of(fw, at))}; the engine keeps no rejection under the call's key, so its restored "
            f"pause waited again and the approval ran {cid}{mechanism(case, 'persistence')}"
        ), (*call_claims(case, cid), *replay_claims(case, cid)), say.all())
