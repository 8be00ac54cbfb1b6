"""The rules about a tool that failed: not retried where the engine retries, a framework's own limit on tool errors in a
row, or a fault that ended the run."""

from __future__ import annotations

from collections.abc import Iterator

from handwritten.engine import MAX_ATTEMPTS as ENGINE_ATTEMPTS
from harness.runner_side.judge.case import Case
from harness.runner_side.judge.facts import (
    FAULT_RAISES,
    asked_for,
    call_claims,
    count,
    exception_default,
    ledger_after,
    stated_after,
    status_claim,
    steps_with,
    times,
)
from harness.runner_side.judge.registry import rule
from harness.runner_side.judge.said import Says
from harness.runner_side.judge.values import Reason


@rule('tool_error_not_retried', 'Does not retry a tool that failed before its effect', stage='tool_errors')
def tool_error_not_retried(case: Case) -> Iterator[Reason]:
    """A tool that raised before its effect was retried by the engine under the same key; the framework did otherwise."""
    for cid in (f.call_id for f in case.scenario.faults if f.point == "tool.raise_before_effect" and f.call_id):
        failed = next((i for i, s in enumerate(case.framework.steps) if s["status"] == "error"), None)
        # counted through the step the error ended (a later decision or resume may enter it again: that is not a retry)
        until = float("inf") if failed is None else failed
        # the engine's entries in all: it may retry the call at a later step than the framework's error (a turn's calls
        # wait for its high-risk call's decision)
        runs, engine_runs = ledger_after(case.framework, until).get(cid, {}).get("executor_entries", 0), count(case.engine, cid, "executor_entries")
        if runs >= engine_runs or not runs:  # a call never entered was not retried or not: another rule says why it never ran
            continue
        total, effects = count(case.framework, cid, "executor_entries"), count(case.framework, cid, "effects")
        so_far = ledger_after(case.framework, until).get(cid, {}).get("effects", 0)  # the effects of the entries counted, not the later ones
        later = f" through driver step {failed} ({total} executor entries and {_effects(effects)} in all)" if (total, effects) != (runs, so_far) else ""
        ended = f"; the error ended the run at driver step {failed} ({case.framework.steps[failed]['error'] or 'the framework raised'})" if failed is not None else ""
        say = Says()
        tail, after = stated_after(case, failed + 1 if failed is not None else steps_with(case.framework, "executed", cid)[0]["step"], say)
        engine_effects = count(case.engine, cid, "effects")
        gave_up = " until its bound, then handed the error to the model as the tool's result" if engine_runs >= ENGINE_ATTEMPTS and not engine_effects else ""
        yield Reason("tool_error_not_retried", (
            f"{cid}'s executor raised before its effect; the engine retried it under the same key{gave_up} ({engine_runs} executor entries, "
            f"{_effects(engine_effects)}), the framework entered it {times(runs)} with {_effects(so_far)}{later}{ended}"
            f"{exception_default(case, cid, failed)}{tail}"
        ), (*call_claims(case, cid), *(status_claim(case, failed, "error") if failed is not None else ()), *after), say.all())


@rule('stopped_after_tool_errors', 'Stops running tools after tool errors in a row, and never runs the calls the model asks for next', stage='tool_errors')
def stopped_after_tool_errors(case: Case) -> Iterator[Reason]:
    """The framework's own limit on model turns whose tool calls failed in a row (its constant ``error_limit``), at work:
    in one driver step the results of that many consecutive scripted turns hold an error each, and a call of the next
    turn, which the framework asked the model for in the same step, never entered its tool where the engine ran it."""
    limit = case.constants.get("error_limit")
    if limit is None:
        return
    turn_of = {c["id"]: t for t, turn in reversed(list(enumerate(case.scenario.model_script))) for c in turn.get("tool_calls", ())}
    asked = case.implied["model"]["calls_per_turn"]
    for fact in case.framework.facts:
        failed, n = sorted({turn_of[c] for c, status in fact.get("results", ()) if status == "error" and c in turn_of}), limit["value"]
        streak = next((failed[i : i + n] for i in range(len(failed)) if failed[i : i + n] == list(range(failed[i], failed[i] + n))), None)
        if not streak or str(nxt := streak[-1] + 1) not in asked or nxt >= len(case.scenario.model_script):
            continue
        dropped = [c["id"] for c in case.scenario.model_script[nxt].get("tool_calls", ())
                   if not count(case.framework, c["id"], "tool_entries") and count(case.engine, c["id"], "executor_entries")]
        if not dropped:
            continue
        errored = [c for c, status in fact.get("results", ()) if status == "error" and turn_of.get(c) in streak]
        said, turns = asked_for(case, [nxt])
        yield Reason("stopped_after_tool_errors", (
            f"in driver step {fact['step']} the calls of {len(streak)} model turns in a row failed (turns {streak[0]} to {streak[-1]}: "
            f"{', '.join(errored)}), its own limit of turns with a tool error in a row (`error_limit`: {limit['value']}, `{limit['ref']}`, read "
            f"from the pinned environment); it then asked the model for {said} and ran none of that turn's calls: {', '.join(dropped)} never "
            f"entered its tool (the engine ran {'it' if len(dropped) == 1 else 'them'})"
        ), (*turns, *(c for cid in dropped for c in call_claims(case, cid))))


def _effects(n: int) -> str:
    return "no effect" if n == 0 else f"{n} effect" if n == 1 else f"{n} effects"




@rule('fault_ended_run', "A fault injected into a call the engine never ran raises out of the framework's run and ends it", stage=None, consequence=True)
def fault_ended_run(case: Case) -> Iterator[Reason]:
    """A fault injected into a call the engine never entered raised out of the framework's run and ended it: the step's
    exception is the fault's. What let the call run (a denied tool, arguments the schema refuses...) is another rule's."""
    engine_entered = {c for f in case.engine.facts for c in f.get("entered", {})}
    for fact, step in zip(case.framework.facts, case.framework.steps, strict=True):
        raised = fact.get("raised")
        hit = [f for f in case.scenario.faults if f.call_id in fact.get("entered", {}) and f.call_id not in engine_entered
               and FAULT_RAISES.get(f.action) == raised]
        if step["status"] == "error" and hit:
            say = Says()
            tail, after = stated_after(case, fact["step"] + 1, say)
            yield Reason("fault_ended_run", (
                f"{hit[0].call_id}'s executor, which the engine never entered, raised its fault ({hit[0].point}: {raised}) and the exception "
                f"ended the framework's driver step {fact['step']} ({step['status']}; engine: {case.engine.steps[fact['step']]['status']}){tail}"
            ), (*status_claim(case, fact["step"], "error"), *after), say.all())

