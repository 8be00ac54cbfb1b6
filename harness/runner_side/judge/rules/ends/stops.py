"""The rules about where a run stops, or does not: the step bound, a kill, the resume after it, an outcome the engine
stops on for reconciliation."""

from __future__ import annotations

from collections.abc import Iterator

from harness.records import MCP_STEP_BOUND_S
from harness.runner_side.judge.case import Case
from harness.runner_side.judge.facts import (
    asked_for,
    call_claims,
    claim,
    count,
    differing_calls,
    exception_default,
    interrupt_claims,
    mechanism,
    open_approvals,
    pause_claims,
    stated_after,
    status_claim,
    turn_list_claims,
)
from harness.runner_side.judge.registry import rule
from harness.runner_side.judge.said import AskedAgain, ExecutedSoFar, NeverAskedAgain, ResumeFound, Says
from harness.runner_side.judge.values import Claim, Reason


@rule('step_bound_not_enforced', "Does not stop at the scenario's step bound", stage='step_bound')
def step_bound_not_enforced(case: Case) -> Iterator[Reason]:
    """The engine stopped at max_steps; the framework went on."""
    engine_stopped = [f["step"] for f, s in zip(case.engine.facts, case.engine.steps, strict=True) if s["status"] == "stopped_max_steps"]
    last = max(map(int, case.implied["model"]["calls_per_turn"]), default=-1)
    if not engine_stopped or any(s["status"] == "stopped_max_steps" for s in case.framework.steps) or last < case.scenario.max_steps:
        return  # a run that ended before the bound never met it
    limit = case.constants.get("step_limit")
    own = f"; its own default bound is {limit['value']} (`{limit['ref']}`, read from the pinned environment)" if limit else ""
    beyond = [t for t in range(case.scenario.max_steps, last + 1)]
    said, turns = asked_for(case, beyond)
    step = engine_stopped[0]
    say = Says()
    tail, after = stated_after(case, step + 1, say)
    yield Reason("step_bound_not_enforced", (
        f"max_steps={case.scenario.max_steps} stopped the engine at driver step {step}; the framework's run was not bounded by it: its driver step {step} "
        f"ended {case.framework.steps[step]['status']}, and it asked the model for turns 0 to {last} (beyond the bound: {said}){tail}{own}{mechanism(case, 'loop')}"
    ), (*status_claim(case, step, case.framework.steps[step]["status"]), *after, *turns, *turn_list_claims(case),
        *(c for cid in differing_calls(case) for c in call_claims(case, cid)
          if count(case.framework, cid, "executor_entries") > count(case.engine, cid, "executor_entries"))), say.all())


@rule('fault_never_fired', 'Never reaches a fault point the engine meets', stage='checkpoint')
@rule('fault_fired_only_here', 'Meets a fault point the engine never reaches', stage='checkpoint')
def fault_never_fired(case: Case) -> Iterator[Reason]:
    """A driver step the engine's run was killed in was not killed in the framework's (a fault point it never passes),
    or the other way round."""
    engine_kills = {f["step"] for f in case.engine.facts if f.get("killed")}
    fw_kills = {f["step"] for f in case.framework.facts if f.get("killed")}
    points = ", ".join(f"{f.point} ({f.call_id or f.turn if f.save is None else f.selector_text})" for f in case.scenario.faults if f.action == "kill")
    engine_only = [f.point for f in case.scenario.faults if f.point.startswith("engine.")]
    for step in sorted(engine_kills - fw_kills):
        why = (f"of them {', '.join(engine_only)} is a point only the engine passes (after its intent checkpoint, before the executor)"
               if engine_only else "the framework's run did not reach a kill point there"
               + (" (a `state.kill_after_save` counts each column's own state saves)" if any(f.point == "state.kill_after_save" for f in case.scenario.faults) else ""))
        say = Says()
        tail, after = stated_after(case, step + 1, say)
        yield Reason("fault_never_fired", (
            f"a kill (the scenario's kill points: {points}) ended the engine's driver step {step}; the framework's step {step} ended "
            f"{case.framework.steps[step]['status']} with no kill: {why}{tail}"
        ), (*interrupt_claims(case), *status_claim(case, step, case.framework.steps[step]["status"]), *after, *_calls_from(case, step)), say.all())
    for step in sorted(fw_kills - engine_kills):
        say = Says()
        tail, after = stated_after(case, step, say)
        yield Reason("fault_fired_only_here", (
            f"a kill (the scenario's kill points: {points}) ended the framework's driver step {step}; the engine's step {step} ended "
            f"{case.engine.steps[step]['status']} with no kill{tail}"
        ), (*interrupt_claims(case), *after, *_calls_from(case, step)), say.all())


def _calls_from(case: Case, step: int) -> tuple[Claim, ...]:
    """The leaves of the calls whose counts differ and that either run executed at ``step`` or later."""
    late = {c for run in (case.framework, case.engine) for f in run.facts if f["step"] >= step for c in f.get("executed", {})}
    return tuple(c for cid in differing_calls(case) if cid in late for c in call_claims(case, cid))


@rule('resumed_differently', 'Resumes a killed run somewhere else than the engine, or loses its approval', stage='checkpoint')
def resumed_differently(case: Case) -> Iterator[Reason]:
    """After the same kill, the framework's resume found the run elsewhere, lost an approval or could not continue."""
    fw, engine = case.implied["checkpoint_after_interrupt"], case.engine.observables["checkpoint_after_interrupt"]
    if not isinstance(fw, dict) or not isinstance(engine, dict):
        return
    theirs_by_step = {i["step"]: i for i in engine["interrupts"]}
    for i, mine in enumerate(fw["interrupts"]):
        theirs = theirs_by_step.get(mine["step"])
        if theirs is None:
            continue  # a kill only one run met: fault_never_fired / fault_fired_only_here
        said, fields, say = [], [], Says()
        if mine["resume_position"] != theirs["resume_position"] or mine["pending_call"] != theirs["pending_call"]:
            fields += ["resume_position", "pending_call"]
            call = (mine["pending_call"] or {}).get("call_id")
            found = f"found the run at {mine['resume_position']}" if mine["resume_position"] else "found nothing to resume from"
            said.append(f"{found}{f' with {call} pending' if call else ''} (engine: {theirs['resume_position']})")
        if mine["approval_survives"] is False and theirs["approval_survives"] is not False:
            said.append(_approval_lost(case, mine["step"], say))
            fields.append("approval_survives")
        elif mine["approval_survives"] != theirs["approval_survives"]:
            said.append(_approvals_open(case, mine["step"], say))
            fields.append("approval_survives")
        if mine["resumable"] != theirs["resumable"]:
            said.append("the run could not continue" if not mine["resumable"] else "the run continued")
            fields.append("resumable")
        if said:
            resume = next((f for f in case.framework.facts if f["step"] > mine["step"] and f["action"] == "resume"), None)
            how = f" (driver step {resume['step']}, which ended {case.framework.steps[resume['step']]['status']})" if resume else ""
            tail, after = stated_after(case, mine["step"] + 1, say)
            asked_again = {f["step"] for f in case.framework.facts if f["step"] > mine["step"]}
            yield Reason("resumed_differently", (
                f"after the kill at driver step {mine['step']}, the framework's resume{how}: {'; '.join(said)}{tail}{mechanism(case, 'persistence')}"
            ), (*(claim(case, ("checkpoint_after_interrupt", "interrupts", str(i), f)) for f in fields), *after, *pause_claims(case, asked_again)), say.all())


def _approvals_open(case: Case, crash: int, say: Says) -> str:
    """The two runs held different approvals not yet used at the kill at ``crash`` (one had run the approved call
    before the kill, the other had not: another order within the batch, or another pause): which, and what each
    resume found given."""
    lines = []
    for name, run in (("framework", case.framework), ("engine", case.engine)):
        given = open_approvals(run, crash)
        other = open_approvals(case.engine if name == "framework" else case.framework, crash)
        resume = next((f["step"] for f in run.facts if f["step"] > crash and f.get("resumed")), None)
        found = f" ({say(ResumeFound.of(run, resume, name))})" if resume is not None and given else ""
        used = [say(ExecutedSoFar.of(run, c, crash, name)) for c in other if c not in given]
        lines.append(f"the {name}'s run held approvals not yet used for {', '.join(given) or 'no call'}{found}" + (f" ({'; '.join(used)})" if used else ""))
    return f"at the kill {'; '.join(lines)}"


def _approval_lost(case: Case, crash: int, say: Says) -> str:
    """An approval given before the kill at ``crash`` and not yet used, which the resume did not find given: what the
    resume found, and whether the run asked about the call again afterwards (the first step it waited for it anew)."""
    run = case.framework
    resume = next((f["step"] for f in run.facts if f["step"] > crash and f.get("resumed")), None)
    parts = []
    for call in open_approvals(run, crash):
        again = next((f["step"] for f in run.facts if f["step"] > crash and call in f.get("pending", ())), None)
        parts.append(say(AskedAgain(call, again)) if again is not None else say(NeverAskedAgain(call, crash + 1)))
    found = f" ({say(ResumeFound.of(run, resume))})" if resume is not None else ""
    lost = ", ".join(open_approvals(run, crash))
    return f"did not find the approval of {lost}, given before the kill and not yet used{found}; {'; '.join(parts)}"


_UNCERTAIN_CAUSES = {
    "tool.timeout_after_effect": "a timeout after {}'s effect",
    "tool.kill_before_effect": "{}'s executor was entered before a kill, so whether it took effect is unknown",
    "tool.kill_after_effect": "{}'s executor was entered before a kill, so whether it took effect is unknown",
    "mcp.kill_after_effect": "the MCP server died after {}'s effect, before its answer",
    "mcp.reset_mid_call": "the connection dropped with {}'s answer, after its effect",
}


@rule('uncertain_not_stopped', "Does not stop for reconciliation when a call's outcome is unknown", stage='uncertain')
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
    timed_out = next((f.call_id for f in case.scenario.faults if f.point in _UNCERTAIN_CAUSES and f.call_id in entered and f.action == "timeout"), None)
    default = exception_default(case, timed_out, step if fw_step["status"] == "error" else None) if timed_out else ""
    say = Says()
    tail, after = stated_after(case, step + 1, say)
    yield Reason("uncertain_not_stopped", (
        f"the engine stopped at driver step {step} for an explicit reconciliation ({'; '.join(causes) or 'an uncertain outcome'}); the framework's "
        f"driver step {step} ended {fw_step['status']}{error}{default}{_stalled(case, step)}{tail}"
    ), (*status_claim(case, step, fw_step["status"]), *after), say.all())


def _stalled(case: Case, step: int) -> str:
    """Why a framework's driver step of the ``mcp`` mode ended ``stalled``: the calls it sent whose answer never reached
    it (the server died under them, or the connection dropped with the answer), as the server's records give them."""
    if case.framework.steps[step]["status"] != "stalled" or case.framework.mcp is None:
        return ""
    lost = [cid for cid, c in case.framework.mcp["calls"].items()
            if any(s == step and a in ("died", "cut") for s, a in zip(c["steps"], c["answers"], strict=True))]
    waiting = f", its MCP client still waiting for the answer to {', '.join(lost)} that the server never sent" if lost else ""
    return f" (no answer within the mode's step bound of {MCP_STEP_BOUND_S:g} s{waiting}; the supervisor stopped it)"

