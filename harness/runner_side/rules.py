"""The rules: each reads a case's measured facts and, when its condition holds, yields the reason with the call
ids, steps and counts inline and the differing leaves it accounts for. Nothing here is written per framework or
per scenario; a framework contributes only its mechanisms' names and its constants (``Case``)."""

from __future__ import annotations

from collections.abc import Iterator

from handwritten.engine import MAX_ATTEMPTS
from handwritten.tools import RiskClass
from harness.fixture_tools import InjectedToolError
from harness.runner_side.rule_facts import (
    Case,
    Path,
    Reason,
    Run,
    asked_for,
    at,
    call_claims,
    clip,
    count,
    differing_calls,
    interrupt_claims,
    ledger_after,
    mechanism,
    pause_claims,
    pauses_apart,
    replay_claims,
    risk_of,
    stated_after,
    status_claim,
    steps_with,
    times,
    tool_of,
    turn_list_claims,
)

_UNCERTAIN_CAUSES = {
    "tool.timeout_after_effect": "a timeout after {}'s effect",
    "tool.kill_before_effect": "{}'s executor was entered before a kill, so whether it took effect is unknown",
    "tool.kill_after_effect": "{}'s executor was entered before a kill, so whether it took effect is unknown",
}



def executed_again(case: Case) -> Iterator[Reason]:
    """A call's executor ran more often, or took effect more often, than the engine's."""
    fw, engine = case.framework, case.engine
    for cid in sorted(fw.observables["side_effects"]):
        runs, effects = count(fw, cid, "executor_entries"), count(fw, cid, "effects")
        engine_runs, engine_effects = count(engine, cid, "executor_entries"), count(engine, cid, "effects")
        if (effects > engine_effects and effects > 1) or (runs > engine_runs and runs > 1):
            yield Reason("executed_again", (
                f"{cid} ({tool_of(case.scenario, cid)}): {runs} executor entries and {effects} effects where the engine had "
                f"{engine_runs} and {engine_effects}, executed at {at(steps_with(fw, 'executed', cid))}{mechanism(case, 'tool_dispatch')}"
            ), call_claims(case, cid))


def denied_tool_ran(case: Case) -> Iterator[Reason]:
    """A tool the contract always denies entered its executor."""
    for cid in sorted(case.framework.observables["side_effects"]):
        if risk_of(case.scenario, cid) == RiskClass.ALWAYS_DENY.value and count(case.framework, cid, "executor_entries"):
            yield Reason("denied_tool_ran", (
                f"{cid} ({tool_of(case.scenario, cid)}, always denied by the contract) ran: {count(case.framework, cid, 'executor_entries')} executor "
                f"entries, {count(case.framework, cid, 'effects')} effects at {at(steps_with(case.framework, 'executed', cid))}; no policy stage stopped it"
                f"{mechanism(case, 'tool_dispatch')}"
            ), call_claims(case, cid))


def step_bound_not_enforced(case: Case) -> Iterator[Reason]:
    """The engine stopped at max_steps; the framework went on."""
    engine_stopped = [f["step"] for f, s in zip(case.engine.facts, case.engine.steps, strict=True) if s["status"] == "stopped_max_steps"]
    last = max(map(int, case.framework.observables["model"]["calls_per_turn"]), default=-1)
    if not engine_stopped or any(s["status"] == "stopped_max_steps" for s in case.framework.steps) or last < case.scenario.max_steps:
        return  # a run that ended before the bound never met it
    limit = case.constants.get("step_limit")
    own = f"; its own default bound is {limit['value']} (`{limit['ref']}`, read from the pinned environment)" if limit else ""
    beyond = [t for t in range(case.scenario.max_steps, last + 1)]
    said, turns = asked_for(case, beyond)
    step = engine_stopped[0]
    tail, after = stated_after(case, step + 1)
    yield Reason("step_bound_not_enforced", (
        f"max_steps={case.scenario.max_steps} stopped the engine at driver step {step}; the framework's run was not bounded by it: its driver step {step} "
        f"ended {case.framework.steps[step]['status']}, and it asked the model for turns 0 to {last} (beyond the bound: {said}){tail}{own}{mechanism(case, 'loop')}"
    ), (*status_claim(case, step, case.framework.steps[step]["status"]), *after, *turns, *turn_list_claims(case),
        *(c for cid in differing_calls(case) for c in call_claims(case, cid)
          if count(case.framework, cid, "executor_entries") > count(case.engine, cid, "executor_entries"))))


def fault_never_fired(case: Case) -> Iterator[Reason]:
    """A driver step the engine's run was killed in was not killed in the framework's (a fault point it never passes),
    or the other way round."""
    engine_kills = {f["step"] for f in case.engine.facts if f.get("killed")}
    fw_kills = {f["step"] for f in case.framework.facts if f.get("killed")}
    points = ", ".join(f"{f.point} ({f.call_id or f.turn})" for f in case.scenario.faults if f.action == "kill")
    engine_only = [f.point for f in case.scenario.faults if f.point.startswith("engine.")]
    for step in sorted(engine_kills - fw_kills):
        why = (f"of them {', '.join(engine_only)} is a point only the engine passes (after its intent checkpoint, before the executor)"
               if engine_only else "the framework's run did not reach a kill point there")
        tail, after = stated_after(case, step + 1)
        yield Reason("fault_never_fired", (
            f"a kill (the scenario's kill points: {points}) ended the engine's driver step {step}; the framework's step {step} ended "
            f"{case.framework.steps[step]['status']} with no kill: {why}{tail}"
        ), (*interrupt_claims(case), *status_claim(case, step, case.framework.steps[step]["status"]), *after, *_calls_from(case, step)))
    for step in sorted(fw_kills - engine_kills):
        tail, after = stated_after(case, step)
        yield Reason("fault_fired_only_here", (
            f"a kill (the scenario's kill points: {points}) ended the framework's driver step {step}; the engine's step {step} ended "
            f"{case.engine.steps[step]['status']} with no kill{tail}"
        ), (*interrupt_claims(case), *after, *_calls_from(case, step)))


def _calls_from(case: Case, step: int) -> tuple[Path, ...]:
    """The leaves of the calls whose counts differ and that either run executed at ``step`` or later."""
    late = {c for run in (case.framework, case.engine) for f in run.facts if f["step"] >= step for c in f.get("executed", {})}
    return tuple(c for cid in differing_calls(case) if cid in late for c in call_claims(case, cid))


def resumed_differently(case: Case) -> Iterator[Reason]:
    """After the same kill, the framework's resume found the run elsewhere, lost an approval or could not continue."""
    fw, engine = case.framework.observables["checkpoint_after_interrupt"], case.engine.observables["checkpoint_after_interrupt"]
    if not isinstance(fw, dict) or not isinstance(engine, dict):
        return
    theirs_by_step = {i["step"]: i for i in engine["interrupts"]}
    for i, mine in enumerate(fw["interrupts"]):
        theirs = theirs_by_step.get(mine["step"])
        if theirs is None:
            continue  # a kill only one run met: fault_never_fired / fault_fired_only_here
        said, fields = [], []
        if mine["resume_position"] != theirs["resume_position"] or mine["pending_call"] != theirs["pending_call"]:
            fields += ["resume_position", "pending_call"]
            call = (mine["pending_call"] or {}).get("call_id")
            found = f"found the run at {mine['resume_position']}" if mine["resume_position"] else "found nothing to resume from"
            said.append(f"{found}{f' with {call} pending' if call else ''} (engine: {theirs['resume_position']})")
        if mine["approval_survives"] is False and theirs["approval_survives"] is not False:
            said.append("the approval given before the kill did not survive: the run asked for it again")
            fields.append("approval_survives")
        if mine["resumable"] != theirs["resumable"]:
            said.append("the run could not continue" if not mine["resumable"] else "the run continued")
            fields.append("resumable")
        if said:
            resume = next((f for f in case.framework.facts if f["step"] > mine["step"] and f["action"] == "resume"), None)
            how = f" (driver step {resume['step']}, which ended {case.framework.steps[resume['step']]['status']})" if resume else ""
            tail, after = stated_after(case, mine["step"] + 1)
            asked_again = {f["step"] for f in case.framework.facts if f["step"] > mine["step"]}
            yield Reason("resumed_differently", (
                f"after the kill at driver step {mine['step']}, the framework's resume{how} {'; '.join(said)}{tail}{mechanism(case, 'persistence')}"
            ), (*(("checkpoint_after_interrupt", "interrupts", str(i), f) for f in fields), *after, *pause_claims(case, asked_again)))


def uncertain_not_stopped(case: Case) -> Iterator[Reason]:
    """A timeout after the effect stopped the engine for reconciliation; the framework did not stop there."""
    engine_steps = [f["step"] for f, s in zip(case.engine.facts, case.engine.steps, strict=True) if s["status"] == "reconcile_required"]
    if not engine_steps or any(s["status"] == "reconcile_required" for s in case.framework.steps):
        return
    step = engine_steps[0]
    fw_step = case.framework.steps[step]
    error = f" ({fw_step['error']})" if fw_step.get("error") else ""
    entered = {c for f in case.engine.facts if f["step"] <= step for c in f.get("executed", {})}
    causes = [_UNCERTAIN_CAUSES[f.point].format(f.call_id) for f in case.scenario.faults if f.point in _UNCERTAIN_CAUSES and f.call_id in entered]
    tail, after = stated_after(case, step + 1)
    yield Reason("uncertain_not_stopped", (
        f"the engine stopped at driver step {step} for an explicit reconciliation ({'; '.join(causes) or 'an uncertain outcome'}); the framework's "
        f"driver step {step} ended {fw_step['status']}{error}{tail}"
    ), (*status_claim(case, step, fw_step["status"]), *after))


_FAULT_RAISES = {"raise": f"{InjectedToolError.__module__}.{InjectedToolError.__qualname__}", "timeout": TimeoutError.__name__}
"""What the fixture world raises for each fault action that does not kill (``harness.column_side.faults``)."""


def fault_ended_run(case: Case) -> Iterator[Reason]:
    """A fault injected into a call the engine never entered raised out of the framework's run and ended it: the step's
    exception is the fault's. What let the call run (a denied tool, arguments the schema refuses...) is another rule's."""
    engine_entered = {c for f in case.engine.facts for c in f.get("entered", {})}
    for fact, step in zip(case.framework.facts, case.framework.steps, strict=True):
        raised = fact.get("raised")
        hit = [f for f in case.scenario.faults if f.call_id in fact.get("entered", {}) and f.call_id not in engine_entered
               and _FAULT_RAISES.get(f.action) == raised]
        if step["status"] == "error" and hit:
            tail, after = stated_after(case, fact["step"] + 1)
            yield Reason("fault_ended_run", (
                f"{hit[0].call_id}'s executor, which the engine never entered, raised its fault ({hit[0].point}: {raised}) and the exception "
                f"ended the framework's driver step {fact['step']} ({step['status']}; engine: {case.engine.steps[fact['step']]['status']}){tail}"
            ), (*status_claim(case, fact["step"], "error"), *after))


def tool_error_not_retried(case: Case) -> Iterator[Reason]:
    """A tool that raised before its effect was retried by the engine under the same key; the framework did otherwise."""
    for cid in (f.call_id for f in case.scenario.faults if f.point == "tool.raise_before_effect" and f.call_id):
        failed = next((i for i, s in enumerate(case.framework.steps) if s["status"] == "error"), None)
        # counted through the step the error ended (a later decision or resume may enter it again: that is not a retry)
        until = float("inf") if failed is None else failed
        runs, engine_runs = (ledger_after(run, until).get(cid, {}).get("executor_entries", 0) for run in (case.framework, case.engine))
        if runs >= engine_runs or not runs:  # a call never entered was not retried or not: another rule says why it never ran
            continue
        total = count(case.framework, cid, "executor_entries")
        later = f" through driver step {failed} ({total} executor entries in all)" if total != runs else ""
        ended = f"; the error ended the run at driver step {failed} ({case.framework.steps[failed]['error'] or 'the framework raised'})" if failed is not None else ""
        tail, after = stated_after(case, failed + 1 if failed is not None else steps_with(case.framework, "executed", cid)[0]["step"])
        engine_effects = count(case.engine, cid, "effects")
        gave_up = " until its bound, then handed the error to the model as the tool's result" if engine_runs >= MAX_ATTEMPTS and not engine_effects else ""
        yield Reason("tool_error_not_retried", (
            f"{cid}'s executor raised before its effect; the engine retried it under the same key{gave_up} ({engine_runs} executor entries, "
            f"{_effects(engine_effects)}), the framework entered it {times(runs)}{later} with {_effects(count(case.framework, cid, 'effects'))}{ended}{tail}"
        ), (*call_claims(case, cid), *(status_claim(case, failed, "error") if failed is not None else ()), *after))


def _effects(n: int) -> str:
    return "no effect" if n == 0 else f"{n} effect" if n == 1 else f"{n} effects"


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
    listed, given = case.framework.observables["refusals"], [s["refusal"] for s in mine if s["refusal"]]
    claims: list[Path] = [c for i in refused for c in status_claim(case, i, "refused")]
    if listed == given and len(listed) != len(case.engine.observables["refusals"]):
        claims.append(("refusals",))
    elif listed == given:
        order = [i for i, s in enumerate(mine) if s["refusal"]]
        claims += [("refusals", str(order.index(i))) for i in refused]
    if (pauses := pauses_apart(case, set(refused) | set(kept))) is not None:
        said.append(pauses)
        claims.append(("pre_approval_state", "pauses"))
    yield Reason("step_refused", "; ".join(said), tuple(claims))


def ran_less_often(case: Case) -> Iterator[Reason]:
    """A call whose executions differ from the engine's in count or in the driver steps they happened at, where no
    call id was repeated (that is ``executed_again``'s): what the run's other differences led to, stated as facts."""
    raised = {f.call_id for f in case.scenario.faults if f.point == "tool.raise_before_effect"}
    for cid in sorted(set(differing_calls(case)) | set(_moved_calls(case))):
        runs, engine_runs = count(case.framework, cid, "executor_entries"), count(case.engine, cid, "executor_entries")
        if (cid in raised and runs and runs < engine_runs) or (runs > 1 and runs > engine_runs):
            continue  # tool_error_not_retried / executed_again say why
        yield Reason("ran_less_often" if runs < engine_runs else "ran_at_other_steps", (
            f"{cid} ({tool_of(case.scenario, cid)}): {runs} executor entries and {count(case.framework, cid, 'effects')} effects, at "
            f"{at(steps_with(case.framework, 'executed', cid))}; the engine had {engine_runs} and {count(case.engine, cid, 'effects')}, at "
            f"{at(steps_with(case.engine, 'executed', cid))}; the framework's run ended {case.framework.observables['status']}, the engine's "
            f"{case.engine.observables['status']}"
        ), call_claims(case, cid))


def _moved_calls(case: Case) -> list[str]:
    """Calls with the same counts in both runs whose effects happened at other driver steps."""
    def history(run: Run, cid: str) -> list[tuple[int, int]]:
        return [(f["step"], f["effects"][cid]) for f in run.facts if f.get("effects", {}).get(cid)]

    return sorted(c for c in case.framework.observables["side_effects"] if history(case.framework, c) != history(case.engine, c))


def repeat_not_answered(case: Case) -> Iterator[Reason]:
    """A call id the model sent again (in turns the framework asked for) got fewer results than the engine gave."""
    fw, engine = case.framework.observables["idempotent_replay"], case.engine.observables["idempotent_replay"]
    if not isinstance(fw, dict) or not isinstance(engine, dict):
        return
    asked = {int(t) for t in case.framework.observables["model"]["calls_per_turn"]}
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


def stopped_by_own_bound(case: Case) -> Iterator[Reason]:
    """The framework stopped at its own step bound where the engine did not stop."""
    stopped = [i for i, s in enumerate(case.framework.steps) if s["status"] == "stopped_max_steps"]
    if not stopped or any(s["status"] == "stopped_max_steps" for s in case.engine.steps[: stopped[0] + 1]):
        return
    limit = case.constants.get("step_limit")
    calls = case.framework.observables["model"]["calls_per_turn"]
    asked = sum(calls.values())
    # which bound it was, only when the count of model calls says so
    which = (f" (its default, {limit['value']} model calls: `{limit['ref']}`)" if case.mode == "defaults" and limit and asked == limit["value"]
             else f" (max_steps={case.scenario.max_steps}, as the contract glue passed it)" if case.mode == "contract" and asked == case.scenario.max_steps
             else "")
    per_turn, turns = asked_for(case, sorted(map(int, calls)))
    tail, after = stated_after(case, stopped[0] + 1)
    yield Reason("stopped_by_own_bound", (
        f"the framework's run stopped at its step bound{which}: driver step {stopped[0]} ended stopped_max_steps, having asked the model for {per_turn}; the engine's "
        f"driver step {stopped[0]} ended {case.engine.steps[stopped[0]]['status']}{tail}{mechanism(case, 'loop')}"
    ), (*status_claim(case, stopped[0], "stopped_max_steps"), *after, *turns, *turn_list_claims(case)))


def model_asked_again(case: Case) -> Iterator[Reason]:
    """The model was asked for a scripted turn more often than by the engine."""
    fw, engine = case.framework.observables["model"]["calls_per_turn"], case.engine.observables["model"]["calls_per_turn"]
    again = {t: n for t, n in sorted(fw.items()) if n > engine.get(t, 0) and t in engine}
    if again:
        yield Reason("model_asked_again", (
            "the model was asked again for " + ", ".join(f"turn {t} ({times(n)}, engine {times(engine[t])})" for t, n in again.items())
            + mechanism(case, "loop")
        ), tuple(("model", "calls_per_turn", t) for t in again))


def model_turns_differ(case: Case) -> Iterator[Reason]:
    """The run asked the model for turns beyond the script, or never asked for some, or sent it messages of its own."""
    fw, engine = case.framework.observables["model"], case.engine.observables["model"]
    scripted = len(case.scenario.model_script)
    asked, engine_asked = {int(t) for t in fw["calls_per_turn"]}, {int(t) for t in engine["calls_per_turn"]}
    extra, fewer = sorted(t for t in asked - engine_asked if t >= scripted), sorted(t for t in engine_asked - asked if t >= scripted)
    lists = turn_list_claims(case)
    if extra:
        said, turns = asked_for(case, extra)
        yield Reason("turns_beyond_script", f"the model was asked for turns beyond the script's {scripted} (counting from 0): {said}",
                     (*turns, *(c for c in lists if c[1] == "missing_turns")))
    if fewer:
        yield Reason("turns_never_asked", (
            f"the engine asked the model for turns {', '.join(map(str, fewer))} beyond the script; the framework's run ended "
            f"{case.framework.observables['status']} without asking for them"
        ), (*(("model", "calls_per_turn", str(t)) for t in fewer), *(c for c in lists if c[1] == "missing_turns")))
    unasked = sorted(t for t in engine_asked - asked if t < scripted)
    if unasked:
        last = case.framework.steps[-1]
        yield Reason("turns_never_asked", (
            f"scripted turns {', '.join(map(str, unasked))} were never asked for: the framework's run ended {case.framework.observables['status']} "
            f"(last driver step {len(case.framework.steps) - 1}: {last['status']})"
        ), (*(("model", "calls_per_turn", str(t)) for t in unasked), *(c for c in lists if c[1] == "unused_turns")))
    only_here = sorted(t for t in asked - engine_asked if t < scripted)
    if only_here:
        said, turns = asked_for(case, only_here)
        yield Reason("turns_asked_only_here", (
            f"the framework's run went on to scripted turns the engine never asked for: {said} (the engine's run ended "
            f"{case.engine.observables['status']}, the framework's {case.framework.observables['status']})"
        ), (*turns, *(c for c in lists if c[1] == "unused_turns")))
    less = sorted(t for t in asked & engine_asked if fw["calls_per_turn"][str(t)] < engine["calls_per_turn"][str(t)])
    if less:
        said, turns = asked_for(case, less)
        theirs = ", ".join(f"{times(engine['calls_per_turn'][str(t)])}" for t in less)
        yield Reason("model_asked_less", (
            f"the model was asked for {said} (engine: {theirs}): the framework's run ended {case.framework.observables['status']}"
        ), turns)
    if fw["injected"] != engine["injected"] or fw["marker_roles"] != engine["marker_roles"]:
        said_ = []
        if fw["injected"] != engine["injected"]:
            said_.append(f"the model received {len(fw['injected'])} messages neither the script nor a tool wrote "
                         f"({'; '.join(clip(m) for m in fw['injected'][:2]) or 'none'}; engine: {len(engine['injected'])})")
        if fw["marker_roles"] != engine["marker_roles"]:
            said_.append(f"the tool output's injected instruction reached the model in {', '.join(fw['marker_roles']) or 'no'} messages "
                         f"(engine: {', '.join(engine['marker_roles']) or 'none'})")
        yield Reason("model_saw_other_messages", "; ".join(said_) + mechanism(case, "message_assembly"), (("model", "injected"), ("model", "marker_roles")))


def deduplicated_by_glue(case: Case) -> Iterator[Reason]:
    """The framework's run did not repeat an effect only because contract glue kept a record of it."""
    replay = case.framework.observables["idempotent_replay"]
    glued = sorted(cid for cid, c in replay.items() if c["provided_by"] == "glue") if isinstance(replay, dict) else []
    if glued:
        steps = [f for f in case.framework.facts if f.get("dedup_by") == "glue"]
        yield Reason("deduplicated_by_glue", (
            f"the deduplication of {', '.join(glued)} (at {at(steps)}) came from contract glue (its records keyed by session and tool call "
            f"id), not from the framework{mechanism(case, 'persistence')}"
        ), tuple(("idempotent_replay", cid, "provided_by") for cid in glued))
