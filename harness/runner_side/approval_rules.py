"""The rules about approval: pauses, what waited, and what each decision did (see ``harness.runner_side.rules``
for the rest of the table). Each reads a case's measured facts and, when its condition holds, yields the reason with
the call ids, driver steps and counts inline and the differing leaves it accounts for."""

from __future__ import annotations

from collections.abc import Iterator

from handwritten.tools import RiskClass
from harness.runner_side.rule_facts import Case, Path, Reason, call_claims, count, mechanism, pause_claims, risk_of, stated_after, status_claim, tool_of


def paused_before_validation(case: Case) -> Iterator[Reason]:
    """The run paused for approval before the pending calls' arguments were validated."""
    state = case.framework.observables["pre_approval_state"]
    pauses = [p for p in state["pauses"] if not p["args_validated"]] if isinstance(state, dict) else []
    if pauses:
        steps = ", ".join(f"driver step {p['step']} ({', '.join(c['call_id'] for c in p['pending'])})" for p in pauses)
        yield Reason("paused_before_validation", (
            f"{len(pauses)} of {len(state['pauses'])} pauses came before the pending calls' arguments were validated: {steps}"
            f"{mechanism(case, 'approval')}"
        ), tuple(("pre_approval_state", "pauses", str(i), "args_validated") for i, p in enumerate(state["pauses"]) if not p["args_validated"]))


def asked_about_other_calls(case: Case) -> Iterator[Reason]:
    """The framework paused for calls the contract runs without approval, or ran without pausing calls the contract holds."""
    fw_asked = {c for f in case.framework.facts for c in f.get("pending", ())}
    engine_asked = {c for f in case.engine.facts for c in f.get("pending", ())}
    extra = sorted(c for c in fw_asked - engine_asked if risk_of(case.scenario, c) != RiskClass.HIGH_RISK.value)
    missing = sorted(c for c in engine_asked - fw_asked if count(case.framework, c, "executor_entries"))  # ran with no pause
    if extra:
        kinds = ", ".join(f"{c} ({tool_of(case.scenario, c)}, {risk_of(case.scenario, c)})" for c in extra)
        at = {f["step"] for f in case.framework.facts if set(f.get("pending", ())) & set(extra)}
        first = min(at)
        tail, after = stated_after(case, first)
        yield Reason("asked_about_other_calls", (
            f"the run paused for approval of {kinds}, calls the contract does not ask about (it runs read-only and reversible calls and refuses "
            f"always-denied ones): first at driver step {first}{tail}{mechanism(case, 'approval')}"
        ), (*pause_claims(case, at), *after, *(c for cid in extra for c in call_claims(case, cid))))
    if missing:
        kinds = ", ".join(f"{c} ({tool_of(case.scenario, c)}, {risk_of(case.scenario, c)})" for c in missing)
        at = {f["step"] for f in case.engine.facts if set(f.get("pending", ())) & set(missing)}
        yield Reason("ran_without_asking", f"the run never paused for {kinds}, which the contract holds for approval, and ran it",
                     (*pause_claims(case, at), *(c for cid in missing for c in call_claims(case, cid))))


def paused_at_other_steps(case: Case) -> Iterator[Reason]:
    """At a driver step, the two runs paused for different calls (or only one of them paused)."""
    for fact, engine_fact, step in zip(case.framework.facts, case.engine.facts, case.framework.steps, strict=False):
        mine, theirs = fact.get("pending", []), engine_fact.get("pending", [])
        if mine != theirs and step["action"] not in ("snapshot", "restore"):
            yield Reason("paused_at_other_steps", (
                f"after driver step {fact['step']} ({fact['action']}) the engine was waiting for {', '.join(theirs) or 'nothing'}, the framework for "
                f"{', '.join(mine) or 'nothing'} (its step ended {step['status']})"
            ), (*status_claim(case, fact["step"], step["status"]), *pause_claims(case, {fact["step"]})))


def misused_approval(case: Case) -> Iterator[Reason]:
    """A decision that was not refused: a misused approval (a token for other arguments, session, after expiry, forged
    or reused) taken (the call it names was pending and was decided, or took effect), or any decision that did nothing
    at all (the call it names was not waiting and nothing ran). One that let another call run is
    ``decision_reached_other_call``'s."""
    taken, claims = [], list[Path]()
    ignored: dict[str, list[str]] = {"misused_approval_ignored": [], "decision_ignored": []}
    quiet: dict[str, list[Path]] = {rule: [] for rule in ignored}
    facts = case.framework.facts
    for i, (fact, step) in enumerate(zip(facts, case.framework.steps, strict=True)):
        if fact["action"] not in ("misuse_token", "approve", "reject") or step["status"] in ("refused", "error"):
            continue
        driven = case.scenario.driver[fact["step"]]
        named, effects = driven["call_id"], fact.get("effects", {})
        before = facts[i - 1].get("pending", []) if i else []
        what = f"{driven.get('misuse', '')} {fact['action'].replace('misuse_token', 'approval')} for {named} at driver step {fact['step']}".strip()
        if fact["action"] == "misuse_token" and (named in effects or (named in before and named not in fact.get("pending", ()))):
            outcome = f"{effects[named]} effects" if named in effects else "no longer pending"
            tail, after = stated_after(case, fact["step"])
            taken.append(f"{what} ({named} was pending; after it: {outcome}{tail.replace('; after it', ';')})")
            claims += [*after, *call_claims(case, named)]
        elif not effects and named not in before or (fact["action"] == "misuse_token" and not effects):
            waiting = f"{named} was not waiting (waiting: {', '.join(before) or 'nothing'})" if named not in before else f"{named} stayed pending"
            engine = case.engine.steps[fact["step"]]
            refused = f"; the engine refused it: {engine['refusal']}" if engine["refusal"] else ""
            rule = "misused_approval_ignored" if fact["action"] == "misuse_token" else "decision_ignored"
            ignored[rule].append(f"{what} ({waiting}; the step ended {step['status']}, nothing ran{refused})")
            quiet[rule] += status_claim(case, fact["step"], step["status"])
    if taken:
        yield Reason("misused_approval_accepted", f"misused approvals were taken as approvals: {'; '.join(taken)}{mechanism(case, 'approval')}", tuple(claims))
    for rule, lines in ignored.items():
        if lines:
            yield Reason(rule, f"decisions neither refused nor acted on: {'; '.join(lines)}", tuple(quiet[rule]))


def decisions_met_other_effects(case: Case) -> Iterator[Reason]:
    """When the run paused, or a decision was given, a call that never paused had already taken effect where the
    engine's had not (calls that were asked about are the decisions' rules)."""
    fw, engine = case.framework.observables["pre_approval_state"], case.engine.observables["pre_approval_state"]
    if not isinstance(fw, dict) or not isinstance(engine, dict):
        return

    def unasked(effects: dict[str, int], before: dict[str, int], step: int) -> dict[str, int]:
        asked = {c for f in case.framework.facts if f["step"] <= step for c in f.get("pending", ())}
        return {c: n for c, n in effects.items() if n > before.get(c, 0) and c not in asked}

    def approved(effects: dict[str, int], before: dict[str, int], step: int, waiting: set[str]) -> dict[str, int]:
        """Calls both runs approved before ``step`` that are not the ones waiting or decided now (one approved only
        here is the decision rules'; one asked about again after a lost approval is waiting, not early)."""
        granted = {c for f in case.framework.facts if f["step"] < step for c in f.get("granted", ())}
        granted &= {c for f in case.engine.facts if f["step"] < step for c in f.get("granted", ())}
        return {c: n for c, n in effects.items() if n > before.get(c, 0) and c in granted - waiting}

    for i, (pause, engine_pause) in enumerate(zip(fw["pauses"], engine["pauses"], strict=False)):
        if ran := approved(pause["non_read_only_effects"], engine_pause["non_read_only_effects"], pause["step"], {c["call_id"] for c in pause["pending"]}):
            pending = ", ".join(sorted(c["call_id"] for c in pause["pending"]))
            yield Reason("approved_call_ran_early", (
                f"when the run paused at driver step {pause['step']} for {pending}, the already approved {_had(ran, engine_pause['non_read_only_effects'])}"
            ), tuple(("pre_approval_state", "pauses", str(i), "non_read_only_effects", c) for c in ran))
    for i, (mine, theirs) in enumerate(zip(fw["decisions"], engine["decisions"], strict=False)):
        if ran := approved(mine["effects_before"], theirs["effects_before"], mine["step"], {mine["call_id"]}):
            yield Reason("approved_call_ran_early", (
                f"before the {mine['action']} of {mine['call_id']} at driver step {mine['step']}, the already approved {_had(ran, theirs['effects_before'])}"
            ), tuple(("pre_approval_state", "decisions", str(i), "effects_before", c) for c in ran))

    for i, (pause, engine_pause) in enumerate(zip(fw["pauses"], engine["pauses"], strict=False)):
        if ran := unasked(pause["non_read_only_effects"], engine_pause["non_read_only_effects"], pause["step"]):
            pending = ", ".join(sorted(c["call_id"] for c in pause["pending"]))
            had = _had(ran, engine_pause["non_read_only_effects"])
            yield Reason("effect_before_decision", (
                f"when the run paused at driver step {pause['step']} for {pending}, {had}"
            ), tuple(("pre_approval_state", "pauses", str(i), "non_read_only_effects", c) for c in ran))
    for i, (mine, theirs) in enumerate(zip(fw["decisions"], engine["decisions"], strict=False)):
        if ran := unasked(mine["effects_before"], theirs["effects_before"], mine["step"]):
            had = _had(ran, theirs["effects_before"])
            yield Reason("effect_before_decision", (
                f"before the {mine['action']} of {mine['call_id']} at driver step {mine['step']}, {had}"
            ), tuple(("pre_approval_state", "decisions", str(i), "effects_before", c) for c in ran))


def _had(ran: dict[str, int], engine: dict[str, int]) -> str:
    return ", ".join(f"{c} had {n} effects (engine: {engine.get(c, 0)})" for c, n in ran.items())


def decision_reached_other_call(case: Case) -> Iterator[Reason]:
    """A decision about one call let another call run."""
    for fact in case.framework.facts:
        driven = case.scenario.driver[fact["step"]]
        if fact["action"] not in ("approve", "misuse_token", "reject") or not driven.get("call_id"):
            continue
        engine_effects = case.engine.facts[fact["step"]].get("effects", {}) if fact["step"] < len(case.engine.facts) else {}
        others = {c: n for c, n in fact.get("effects", {}).items()
                  if c != driven["call_id"] and risk_of(case.scenario, c) == RiskClass.HIGH_RISK.value and n > engine_effects.get(c, 0)}
        if others:
            tail, after = stated_after(case, fact["step"])
            yield Reason("decision_reached_other_call", (
                f"the {fact['action']} of {driven['call_id']} at driver step {fact['step']} ran "
                f"{', '.join(f'{c} ({tool_of(case.scenario, c)}, {n} effects)' for c, n in others.items())}"
                f"{tail}{mechanism(case, 'approval')}"
            ), (*after, *(c for cid in others for c in call_claims(case, cid))))
