"""The rules about asking for approval: pauses before validation, for other calls or at other steps, a call the schema
refuses held for a human, and what became of each decision that was not refused."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from handwritten.tools import RiskClass
from harness.runner_side.judge.case import Case
from harness.runner_side.judge.facts import (
    asked_in,
    call_claims,
    claim,
    count,
    ended_claims,
    implicit_follows,
    mechanism,
    pause_claims,
    risk_of,
    stated_after,
    status_claim,
    tool_of,
)
from harness.runner_side.judge.registry import rule
from harness.runner_side.judge.said import EffectsSoFar, Entered, Killed, Says, Statement, StepEnded, Waiting
from harness.runner_side.judge.values import Claim, Reason
from harness.runner_side.observe.observables import invalid_call_ids_of


@rule('paused_before_validation', 'Pauses for approval before validating the arguments', stage='schema')
def paused_before_validation(case: Case) -> Iterator[Reason]:
    """The run paused for approval before the pending calls' arguments were validated."""
    state = case.implied["pre_approval_state"]
    pauses = [p for p in state["pauses"] if not p["args_validated"]] if isinstance(state, dict) else []
    if pauses:
        steps = ", ".join(f"driver step {p['step']} ({', '.join(c['call_id'] for c in p['pending'])})" for p in pauses)
        yield Reason("paused_before_validation", (
            f"{len(pauses)} of {len(state['pauses'])} pauses came before the pending calls' arguments were validated: {steps}"
            f"{mechanism(case, 'approval')}"
        ), tuple(claim(case, ("pre_approval_state", "pauses", str(i), "args_validated")) for i, p in enumerate(state["pauses"]) if not p["args_validated"]))


@rule('asked_about_other_calls', 'Asks for approval of calls the contract does not ask about', stage='approval')
@rule('ran_without_asking', 'Runs a high-risk call without asking for approval', stage='approval')
def asked_about_other_calls(case: Case) -> Iterator[Reason]:
    """The framework paused for calls the contract runs without approval, or ran without pausing calls the contract holds.

    A pause the driver answered within a step with the contract's decision (``implicit_decision``, ``defaults`` only)
    counts as asked: the asking explains the implicit decisions recorded, and only a call left waiting at the end of a
    step explains what followed (the run stopping there, the call never running)."""
    facts, say = case.framework.facts, Says()
    fw_asked = {c for f in facts for c in asked_in(f)}
    engine_asked = {c for f in case.engine.facts for c in f.get("pending", ())}
    extra = sorted(c for c in fw_asked - engine_asked if risk_of(case.scenario, c) != RiskClass.HIGH_RISK.value)
    missing = sorted(c for c in engine_asked - fw_asked if count(case.framework, c, "executor_entries"))  # ran with no pause
    if extra:
        kinds = ", ".join(f"{c} ({tool_of(case.scenario, c)}, {risk_of(case.scenario, c)})" for c in extra)
        first = min(f["step"] for f in facts if set(asked_in(f)) & set(extra))
        answered = [(f["step"], d) for f in facts for d in f.get("implicit_decision", ()) if d["call_id"] in extra]
        waiting = [f for f in facts if set(f.get("pending", ())) & set(extra)]
        left = sorted({c for f in waiting for c in f.get("pending", ()) if c in extra})
        said = f"first at driver step {first}"
        claims: list[Claim] = []
        if answered:
            said += ("; the driver gave the contract's decision within the step: "
                     + ", ".join(f"{d['call_id']} {_DECIDED[d['decision']]} at driver step {step}.{d['sub_step']}" for step, d in answered))
            fw_state, engine_state = case.implied["pre_approval_state"], case.engine.observables["pre_approval_state"]
            if isinstance(fw_state, dict) and implicit_follows(case, fw_state):  # the decisions said are the ones recorded
                claims.append(claim(case, ("pre_approval_state", "implicit_decisions")))
                if not isinstance(engine_state, dict) and not fw_state["pauses"] and not fw_state["decisions"]:
                    claims.append(claim(case, ("pre_approval_state",)))  # the framework has an approval state only because it asked
        if left:
            bounded = [f["step"] for f in waiting if max((d["pause"] for d in f.get("implicit_decision", ())), default=0) >= case.scenario.max_steps]
            said += f"; left waiting: {', '.join(left)} after driver step {waiting[0]['step']}"
            if bounded:
                said += (f" (driver step {bounded[0]} had answered max_steps={case.scenario.max_steps} pauses, as many as the driver answers "
                         "within one step)")
            tail, after = stated_after(case, waiting[0]["step"], say)
            said += tail
            claims += [*pause_claims(case, {f["step"] for f in waiting}), *after, *(c for cid in left for c in call_claims(case, cid))]
        yield Reason("asked_about_other_calls", (
            f"the run paused for approval of {kinds}, calls the contract does not ask about (it runs read-only and reversible calls and refuses "
            f"always-denied ones): {said}{mechanism(case, 'approval')}"
        ), tuple(claims), say.all())
    if missing:
        kinds = ", ".join(f"{c} ({tool_of(case.scenario, c)}, {risk_of(case.scenario, c)})" for c in missing)
        at = {f["step"] for f in case.engine.facts if set(f.get("pending", ())) & set(missing)}
        yield Reason("ran_without_asking", f"the run never paused for {kinds}, which the contract holds for approval, and ran it",
                     (*pause_claims(case, at), *(c for cid in missing for c in call_claims(case, cid))), say.all())


_DECIDED = {"approve": "approved", "reject": "rejected"}


@rule('paused_at_other_steps', "A driver step leaves other calls waiting for a decision than the engine's", stage=None, consequence=True)
def paused_at_other_steps(case: Case) -> Iterator[Reason]:
    """At a driver step, the two runs paused for different calls (or only one of them paused)."""
    for fact, engine_fact, step in zip(case.framework.facts, case.engine.facts, case.framework.steps, strict=False):
        mine, theirs = fact.get("pending", []), engine_fact.get("pending", [])
        if mine == theirs:
            continue
        say = Says()
        waited = (f"the engine: {say(Waiting.of(case.engine, fact['step'], 'engine'))}; the framework: {say(Waiting.of(case.framework, fact['step']))} "
                  f"({say(StepEnded.of(case.framework, fact['step']))})")
        if step["action"] in ("snapshot", "restore"):  # the step reports the saved state: its status, no pause of its own
            yield Reason("paused_at_other_steps", f"driver step {fact['step']} ({fact['action']}) reported the saved state: {waited}",
                         status_claim(case, fact["step"], step["status"]), say.all())
            continue
        yield Reason("paused_at_other_steps", f"after driver step {fact['step']} ({fact['action']}) {waited}",
                     (*status_claim(case, fact["step"], step["status"]), *pause_claims(case, {fact["step"]})), say.all())
    yield from _ended_waiting(case)


def _ended_waiting(case: Case) -> Iterator[Reason]:
    """The last driver step left the framework waiting for calls the engine was not waiting for: a run with a call
    waiting ends ``awaiting_approval`` (``harness.runner_side.observe.observables.final_status``), whatever the engine's ended."""
    facts, engine_facts = case.framework.facts, case.engine.facts
    mine, theirs = (facts[-1].get("pending", []) if facts else []), (engine_facts[-1].get("pending", []) if engine_facts else [])
    status, engine_status = case.implied["status"], case.engine.observables["status"]
    if mine and set(mine) - set(theirs) and status == "awaiting_approval" != engine_status:
        yield Reason("paused_at_other_steps", (
            f"after the last driver step ({facts[-1]['step']}) the framework was still waiting for {', '.join(mine)} (the engine for "
            f"{', '.join(theirs) or 'nothing'}), so its run ended awaiting_approval (engine: {engine_status})"
        ), ended_claims(case))


@rule('invalid_call_held', "A call whose arguments break the tool's schema waits for a human's decision", stage=None, consequence=True)
def invalid_call_held(case: Case) -> Iterator[Reason]:
    """A call whose arguments break the tool's strict schema was held for a human's decision: the contract refuses it at
    the schema stage, before policy, and returns the error to the model, so no human is ever asked about it. Says per
    call the driver steps that left it waiting and whether the framework's own validation passed it first (the step's
    ``validated`` fact: a validation that accepts what the strict schema refuses coerces, one that never ran paused first).
    When the call still waits after the last driver step and the framework's run ended ``awaiting_approval`` where the
    engine's ended otherwise, that wait is the final status (``harness.runner_side.observe.observables.final_status``): the reason
    says so and claims it. The pauses themselves are ``paused_at_other_steps``'."""
    facts, invalid = case.framework.facts, invalid_call_ids_of(case.scenario)
    last = facts[-1].get("pending", []) if facts else []
    status, engine_status = case.implied["status"], case.engine.observables["status"]
    for cid, error in invalid.items():
        held = [f for f in facts if cid in f.get("pending", ())]
        if not held:
            continue
        checked = ", ".join(f"driver step {f['step']} ({'after its own validation passed them' if f.get('validated') else 'before any validation'})"
                            for f in held)
        text = (f"{cid}'s arguments break {tool_of(case.scenario, cid)}'s strict schema ({error}), which the engine refused and returned to the "
                f"model; the framework held {cid} for approval instead: waiting after {checked}")
        claims: tuple[Claim, ...] = ()
        if cid in last and status == "awaiting_approval" != engine_status:
            text += f"; {cid} still waited after the last driver step, so the run ended {status} (engine: {engine_status})"
            claims = ended_claims(case)
        yield Reason("invalid_call_held", text + mechanism(case, "approval"), claims)


@rule('misused_approval_accepted', 'Takes a misused approval whose binding its approval object carries (not enforced)', stage='approval')
@rule('misused_approval_ignored', 'Neither refuses nor acts on a misused approval', stage='approval')
@rule('approval_not_carried', 'Takes a misused approval whose binding its approval object does not carry', stage=None, consequence=True)
@rule('decision_ignored', 'Neither refuses nor acts on a decision for a call that is not waiting', stage='approval')
@rule('decision_for_unasked_call', 'A decision names a call the framework never asked about (it paused for another)', stage=None, consequence=True)
@rule('refused_decision_taken', "A decision the engine refuses goes in, and the framework's run goes on", stage=None, consequence=True)
def misused_approval(case: Case) -> Iterator[Reason]:
    """What became of each decision that was not refused. A misused approval (``approval_object`` fact) whose binding the
    framework's approval object does not carry went in as the plain decision: ``approval_not_carried`` (said once per
    framework in FINDINGS.md, never a finding per scenario). One whose object carries the binding and was taken anyway
    (the call it decides took effect, or stopped waiting): ``misused_approval_accepted``, the binding not enforced. One
    neither refused nor taken, and any decision that did nothing at all: ``misused_approval_ignored`` / ``decision_ignored``;
    a plain decision for a call the framework's run had never left waiting (the engine asked about it, the framework paused
    elsewhere) has no question of the framework's to answer: ``decision_for_unasked_call``, a consequence of that pause.
    A plain decision the engine refused that the framework's run took and went on with (a call ran, or the named call
    stopped waiting: the framework asked a question the engine never did, or kept one across a kill that the engine's
    checkpoint had answered): ``refused_decision_taken``, a consequence of that question.
    A misuse held for a batched turn is judged at the step that handed the turn over. One that let another call run is
    ``decision_reached_other_call``'s."""
    found: dict[str, list[str]] = {"approval_not_carried": [], "misused_approval_accepted": [], "misused_approval_ignored": [], "decision_ignored": [],
                                   "decision_for_unasked_call": [], "refused_decision_taken": []}
    claims: dict[str, list[Claim]] = {rule: [] for rule in found}
    said: dict[str, list[Statement]] = {rule: [] for rule in found}

    def add(rule: str, say: Says, line: str) -> None:
        """A line of ``rule``'s reason, with the statements its words were rendered from."""
        found[rule].append(line)
        said[rule].extend(say.statements)

    facts = case.framework.facts
    for i, (fact, step) in enumerate(zip(facts, case.framework.steps, strict=True)):
        if fact["action"] not in ("misuse_token", "approve", "reject") or step["status"] in ("refused", "error"):
            continue
        say = Says()
        driven = case.scenario.driver[fact["step"]]
        named, obj = driven["call_id"], fact.get("approval_object")
        held = named in fact.get("held", ())
        judged = _handed_over(facts, i) if obj and held else i
        outcome_step, judged_fact = case.framework.steps[judged], facts[judged]
        effects = judged_fact.get("effects", {})
        before = facts[i - 1].get("pending", []) if i else []
        what = f"{driven.get('misuse', '')} {fact['action'].replace('misuse_token', 'approval')} for {named} at driver step {fact['step']}".strip()
        handed = f", handed over with driver step {judged_fact['step']}" if judged != i else ""
        if obj and outcome_step["status"] in ("refused", "error"):
            continue  # the framework refused the object when the turn went in: the binding held
        gone = named in before and named not in judged_fact.get("pending", ()) and not (held and judged == i)
        kill = _killed_since(facts, i)  # the run killed before this decision and not resumed since, if any
        if obj and (named in effects or gone):
            outcome = (say(EffectsSoFar.of(case.framework, named, judged_fact["step"])) if named in effects else
                       f"{named} no longer waiting ({say(Waiting.of(case.framework, judged_fact['step']))})")
            rule = "misused_approval_accepted" if obj["carried"] else "approval_not_carried"
            via = f"its approval object carries the {obj['binding'].replace('_', ' ')} and it did not hold" if obj["carried"] else (
                f"its approval object has no field for the {obj['binding'].replace('_', ' ')}: it went in as a plain approval")
            tail, after = stated_after(case, fact["step"], say)
            add(rule, say, f"{what} ({via}{handed}; after it: {outcome}{tail.replace('; after it', ';')})")
            claims[rule] += [*after, *call_claims(case, named)]
        elif not obj and (engine_refusal := case.engine.steps[fact["step"]]["refusal"]) and (
                judged_fact.get("entered") or gone or (kill is not None and step["status"] not in ("crashed", "error"))):
            # the engine refused the decision; the framework's run took it and went on (its own question, or a killed run's,
            # which the decision resumed: the step ended otherwise than crashed)
            ran = (say(Entered.of(case.framework, judged_fact["step"])) if judged_fact.get("entered") or not gone else
                   f"{named} no longer waiting ({say(Waiting.of(case.framework, judged_fact['step']))})")
            if before or kill is None:
                waiting = f"the framework: {say(Waiting.of(case.framework, i - 1)) if i else 'nothing waiting'}"
            else:  # a killed step records no pending: the decision's own check says what it decided
                waiting = f"the framework's run {say(Killed(kill))} and not resumed since"
            tail, after = stated_after(case, fact["step"], say)
            add("refused_decision_taken", say,
                f"{what} (the engine refused it: {engine_refusal}; {waiting}; {ran}{tail.replace('; after it', ';')})")
            claims["refused_decision_taken"] += after
        elif not effects and named not in before or (obj and not effects):
            rule, line, more = _not_taken(case, i, judged, obj, what + handed, say)
            add(rule, say, line)
            claims[rule] += more
    texts = {"approval_not_carried": "misused approvals went in as plain ones", "misused_approval_accepted": "misused approvals were taken as approvals",
             "misused_approval_ignored": "misused approvals neither refused nor acted on", "decision_ignored": "decisions neither refused nor acted on",
             "decision_for_unasked_call": "decisions for calls the framework never asked about",
             "refused_decision_taken": "decisions the engine refused went in and the framework's run went on"}
    for rule, lines in found.items():
        if lines:
            tail = mechanism(case, "approval") if rule == "misused_approval_accepted" else ""
            yield Reason(rule, f"{texts[rule]}: {'; '.join(lines)}{tail}", tuple(claims[rule]), tuple(dict.fromkeys(said[rule])))


def _not_taken(case: Case, i: int, judged: int, obj: dict[str, Any] | None, what: str, say: Says) -> tuple[str, str, list[Claim]]:
    """A decision (fact ``i``, judged at fact ``judged``) that did not take effect when it went in: the rule, the line
    and the claims. A misused approval whose call ran later with no decision of its own since was acted on there."""
    facts, fact, step = case.framework.facts, case.framework.facts[i], case.framework.steps[i]
    named, judged_step = case.scenario.driver[fact["step"]]["call_id"], facts[judged]["step"]
    if obj and (later := _ran_later(case, judged, named)) is not None:
        rule = "misused_approval_accepted" if obj["carried"] else "approval_not_carried"
        tail, after = stated_after(case, fact["step"], say)
        ran, total = say(Entered.of(case.framework, later)), say(EffectsSoFar.of(case.framework, named, later))
        return rule, f"{what} (then, with no decision for {named} since, {ran}; {total}{tail.replace('; after it', ';')})", [
            *after, *call_claims(case, named)]
    before = facts[i - 1].get("pending", []) if i else []
    was = say(Waiting.of(case.framework, i - 1)) if i else "nothing was waiting"
    waiting = f"{named} was not waiting ({was})" if named not in before else f"{named} still {say(Waiting.of(case.framework, judged_step))}"
    engine = case.engine.steps[fact["step"]]
    refused = f"; the engine refused it: {engine['refusal']}" if engine["refusal"] else ""
    rule = "misused_approval_ignored" if obj else "decision_ignored"
    if not obj and not any(named in f.get("pending", ()) for f in facts[:i]):
        # the framework's run never asked about the call: the decision answers the engine's question, not one of its own
        rule, waiting = "decision_for_unasked_call", f"{named} was never waiting in the framework's run ({was})"
    ended, ran = say(StepEnded.of(case.framework, judged_step)), say(Entered.of(case.framework, judged_step))
    return rule, f"{what} ({waiting}; {ended}, {ran}{refused})", [
        *status_claim(case, fact["step"], step["status"]), *(pause_claims(case, {fact["step"]}) if obj else ())]


def _ran_later(case: Case, judged: int, named: str) -> int | None:
    """The first driver step from ``judged`` on in which ``named`` entered its tool with no decision naming it given
    after the decision judged (a later approval of its own would be what ran it)."""
    for fact in case.framework.facts[judged:]:
        if fact["step"] > judged and fact["action"] in ("misuse_token", "approve", "reject") and case.scenario.driver[fact["step"]]["call_id"] == named:
            return None
        if fact.get("entered", {}).get(named):
            return int(fact["step"])
    return None


def _killed_since(facts: list[dict[str, Any]], i: int) -> int | None:
    """The driver step whose run was killed with nothing run since, before fact ``i``: every step after it ran nothing."""
    for j in range(i - 1, -1, -1):
        if facts[j].get("killed"):
            return int(facts[j]["step"])
        if facts[j].get("entered") or facts[j]["action"] in ("resume", "restore"):
            return None
    return None


def _handed_over(facts: list[dict[str, Any]], i: int) -> int:
    """The step that handed a held decision's turn over: the next decision step whose own decision was not held."""
    for j in range(i + 1, len(facts)):
        if facts[j]["action"] in ("misuse_token", "approve", "reject") and not facts[j].get("held"):
            return j
    return i

