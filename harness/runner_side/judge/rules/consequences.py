"""What followed from the behaviours the other rules name, stated as facts: refused steps, calls that ran another
number of times or at other steps, results delivered another number of times."""

from __future__ import annotations

from collections.abc import Iterator

from harness.runner_side.judge.case import Case
from harness.runner_side.judge.facts import (
    at,
    call_claims,
    claim,
    count,
    differing_calls,
    pauses_apart,
    replay_claims,
    risk_of,
    status_claim,
    steps_with,
    tool_of,
)
from harness.runner_side.judge.registry import rule
from harness.runner_side.judge.said import Answered, Says
from harness.runner_side.judge.values import Claim, Reason, Run


@rule('step_refused', 'A driver step is refused, or one the engine refused is not', stage=None, consequence=True)
def step_refused(case: Case) -> Iterator[Reason]:
    """A driver step the engine performed was refused in the framework's run (a step it has no way to perform, or
    nothing to act on), or one the engine refused was not: one reason for all of them, since the refusals are one list.
    It claims the refused steps' statuses (a refusal ends its step ``refused``) and the refusals, where the list is the
    one the steps gave (a refusal no step gave is no consequence of anything)."""
    mine, theirs = case.framework.steps, case.engine.steps
    refused = [i for i, (s, e) in enumerate(zip(mine, theirs, strict=False)) if s["refusal"] and s["refusal"] != e["refusal"]]
    kept = [i for i, (s, e) in enumerate(zip(mine, theirs, strict=False)) if e["refusal"] and not s["refusal"]]
    if not refused and not kept:
        return
    said = [f"driver step {i} ({mine[i]['action']}) was refused: {mine[i]['refusal']}" for i in refused]
    said += [f"driver step {i} ({mine[i]['action']}) was not refused (the engine's refusal: {theirs[i]['refusal']})" for i in kept]
    listed, given = case.implied["refusals"], [s["refusal"] for s in mine if s["refusal"]]
    claims: list[Claim] = [c for i in refused for c in status_claim(case, i, "refused")]
    if listed == given and len(listed) != len(case.engine.observables["refusals"]):
        claims.append(claim(case, ("refusals",)))
    elif listed == given:
        order = [i for i, s in enumerate(mine) if s["refusal"]]
        claims += [claim(case, ("refusals", str(order.index(i)))) for i in refused]
    if (pauses := pauses_apart(case, set(refused) | set(kept))) is not None:
        said.append(pauses)
        claims.append(claim(case, ("pre_approval_state", "pauses")))
    yield Reason("step_refused", "; ".join(said), tuple(claims))


@rule('ran_less_often', "A call runs fewer times than in the engine's run", stage=None, consequence=True)
@rule('ran_at_other_steps', "A call runs more often, or at other driver steps, than in the engine's run", stage=None, consequence=True)
def ran_less_often(case: Case) -> Iterator[Reason]:
    """A call whose executions differ from the engine's in count or in the driver steps they happened at, where no
    call id was repeated (that is ``executed_again``'s): what the run's other differences led to, stated as facts."""
    raised = {f.call_id for f in case.scenario.faults if f.point == "tool.raise_before_effect"}
    for cid in sorted(set(differing_calls(case)) | set(_moved_calls(case))):
        runs, engine_runs = count(case.framework, cid, "executor_entries"), count(case.engine, cid, "executor_entries")
        if (cid in raised and runs and runs < engine_runs) or (runs > 1 and runs > engine_runs):
            continue  # tool_error_not_retried / executed_again say why
        say = Says()  # a call answered without entering its tool: the results it got are the reason's words
        answered = [] if count(case.framework, cid, "tool_entries") else [
            say(Answered(f["step"], cid, r[1])) for f in case.framework.facts for r in f.get("results", ()) if r[0] == cid]
        unentered = f"; never entering its tool, the framework {', '.join(answered)}" if answered else ""
        yield Reason("ran_less_often" if runs < engine_runs else "ran_at_other_steps", (
            f"{cid} ({tool_of(case.scenario, cid)}): {runs} executor entries and {count(case.framework, cid, 'effects')} effects, at "
            f"{at(steps_with(case.framework, 'executed', cid))}; the engine had {engine_runs} and {count(case.engine, cid, 'effects')}, at "
            f"{at(steps_with(case.engine, 'executed', cid))}{unentered}; the framework's run ended {case.implied['status']}, "
            f"the engine's {case.engine.observables['status']}"
        ), call_claims(case, cid), say.all())


def _moved_calls(case: Case) -> list[str]:
    """Calls with the same counts in both runs whose effects happened at other driver steps, or, for a call that is not
    read-only, whose executor entries did (an entry killed before its effect leaves no effect to place, and the views
    before each decision, which hold non-read-only calls only, still count its zero from then on)."""
    def history(run: Run, cid: str, kind: str) -> list[tuple[int, int]]:
        return [(f["step"], f[kind][cid]) for f in run.facts if f.get(kind, {}).get(cid)]

    kinds = {c: ("effects",) if risk_of(case.scenario, c) == "read_only" else ("effects", "executed") for c in case.implied["side_effects"]}
    return sorted(c for c, ks in kinds.items() if any(history(case.framework, c, k) != history(case.engine, c, k) for k in ks))


@rule('repeat_not_answered', 'Drops a call id the model sends again', stage='idempotency')
@rule('results_differ', "A call's results reach the model another number of times", stage=None, consequence=True)
def repeat_not_answered(case: Case) -> Iterator[Reason]:
    """A call id the model sent again (in turns the framework asked for) got fewer results than the engine gave."""
    fw, engine = case.implied["idempotent_replay"], case.engine.observables["idempotent_replay"]
    if not isinstance(fw, dict) or not isinstance(engine, dict):
        return
    asked = {int(t) for t in case.implied["model"]["calls_per_turn"]}
    for cid in sorted(fw):
        turns = [t for t, turn in enumerate(case.scenario.model_script) if t in asked and any(c["id"] == cid for c in turn.get("tool_calls", ()))]
        delivered, engine_delivered = len(fw[cid]["results"]), len(engine.get(cid, {}).get("results", ()))
        repeat_lost = len(turns) > 1 and delivered < engine_delivered
        if not repeat_lost and fw[cid]["results"] != engine.get(cid, {}).get("results"):
            mine, theirs = _result_statuses(case.framework, cid), _result_statuses(case.engine, cid)
            same = "; the same statuses, each run's in its own words" if mine == theirs else ""
            yield Reason("results_differ", (
                f"the framework delivered {delivered} results for {cid} ({', '.join(mine) or 'none'}), the engine {engine_delivered} "
                f"({', '.join(theirs) or 'none'}){same}"
            ), replay_claims(case, cid))
        if repeat_lost:
            yield Reason("repeat_not_answered", (
                f"the model sent {cid} in turns {', '.join(map(str, turns))}; the framework delivered {delivered} of its results, the engine "
                f"{engine_delivered} (the repeat replayed from its record)"
            ), replay_claims(case, cid))


def _result_statuses(run: Run, cid: str) -> list[str]:
    """The status of each result of ``cid`` a run delivered to the model, in order (the step facts')."""
    return [r[1] for f in run.facts for r in f.get("results", ()) if r[0] == cid]

