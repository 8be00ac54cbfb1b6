"""The rules about what a decision did besides deciding its call: let another call run, raise, or wait for the rest of
its turn."""

from __future__ import annotations

from collections.abc import Iterator

from handwritten.tools import RiskClass
from harness.runner_side.judge.case import Case, Reason
from harness.runner_side.judge.facts import (
    call_claims,
    claim,
    mechanism,
    risk_of,
    stated_after,
    status_claim,
    tool_of,
)
from harness.runner_side.judge.registry import rule


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
            tail, after = stated_after(case, fact["step"])
            yield Reason("decision_reached_other_call", (
                f"the {fact['action']} of {driven['call_id']} at driver step {fact['step']} ran "
                f"{', '.join(f'{c} ({tool_of(case.scenario, c)}, {n} effects)' for c, n in others.items())}"
                f"{tail}{mechanism(case, 'approval')}"
            ), (*after, *(c for cid in others for c in call_claims(case, cid))))


@rule('decision_raised', 'Answers a decision with an exception that ends the run', stage=None, consequence=True)
def decision_raised(case: Case) -> Iterator[Reason]:
    """A decision the framework answered with an exception (one its MAPPING.md declares): the run ended ``error`` there
    where the engine refused the decision or went on."""
    for fact, step in zip(case.framework.facts, case.framework.steps, strict=True):
        if fact["action"] not in ("misuse_token", "approve", "reject") or not fact.get("raised"):
            continue
        engine = case.engine.steps[fact["step"]]
        then = f"the engine refused it ({engine['refusal']})" if engine["refusal"] else f"the engine's step ended {engine['status']}"
        tail, after = stated_after(case, fact["step"])
        yield Reason("decision_raised", (
            f"the {fact['action'].replace('misuse_token', 'misused approval')} at driver step {fact['step']} ended in {fact['raised']}: the step "
            f"ended {step['status']}, {then}{tail}{mechanism(case, 'approval')}"
        ), (*status_claim(case, fact["step"], step["status"]), *after))


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

