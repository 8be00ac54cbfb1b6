"""The rules about the model calls: a step bound of the framework's own, a turn asked again, turns beyond the script
or never asked, messages the framework wrote."""

from __future__ import annotations

from collections.abc import Iterator

from harness.runner_side.judge.case import Case
from harness.runner_side.judge.facts import (
    asked_for,
    claim,
    clip,
    mechanism,
    stated_after,
    status_claim,
    times,
    turn_list_claims,
)
from harness.runner_side.judge.registry import rule
from harness.runner_side.judge.said import Says
from harness.runner_side.judge.values import Reason


@rule('stopped_by_own_bound', 'Stops at its own step bound', stage='step_bound')
def stopped_by_own_bound(case: Case) -> Iterator[Reason]:
    """The framework stopped at its own step bound where the engine did not stop."""
    stopped = [i for i, s in enumerate(case.framework.steps) if s["status"] == "stopped_max_steps"]
    if not stopped or any(s["status"] == "stopped_max_steps" for s in case.engine.steps[: stopped[0] + 1]):
        return
    limit = case.constants.get("step_limit")
    calls = case.implied["model"]["calls_per_turn"]
    asked = sum(calls.values())
    # which bound it was, only when the count of model calls says so
    which = (f" (its default, {limit['value']} model calls: `{limit['ref']}`)" if case.mode == "defaults" and limit and asked == limit["value"]
             else f" (max_steps={case.scenario.max_steps}, as the contract glue passed it)" if case.mode == "contract" and asked == case.scenario.max_steps
             else "")
    per_turn, turns = asked_for(case, sorted(map(int, calls)))
    say = Says()
    tail, after = stated_after(case, stopped[0] + 1, say)
    yield Reason("stopped_by_own_bound", (
        f"the framework's run stopped at its step bound{which}: driver step {stopped[0]} ended stopped_max_steps, having asked the model for {per_turn}; the engine's "
        f"driver step {stopped[0]} ended {case.engine.steps[stopped[0]]['status']}{tail}{mechanism(case, 'loop')}"
    ), (*status_claim(case, stopped[0], "stopped_max_steps"), *after, *turns, *turn_list_claims(case)), say.all())


@rule('model_asked_again', 'Asks the model again for a turn it already answered', stage=None)
def model_asked_again(case: Case) -> Iterator[Reason]:
    """The model was asked for a scripted turn more often than by the engine."""
    fw, engine = case.implied["model"]["calls_per_turn"], case.engine.observables["model"]["calls_per_turn"]
    again = {t: n for t, n in sorted(fw.items()) if n > engine.get(t, 0) and t in engine}
    if again:
        yield Reason("model_asked_again", (
            "the model was asked again for " + ", ".join(f"turn {t} ({times(n)}, engine {times(engine[t])})" for t, n in again.items())
            + mechanism(case, "loop")
        ), tuple(claim(case, ("model", "calls_per_turn", t)) for t in again))


@rule('turns_beyond_script', 'Asks the model for turns beyond the script', stage=None)
@rule('model_saw_other_messages', 'Sends the model messages of its own', stage=None)
@rule('turns_never_asked', 'Scripted turns are never asked for', stage=None, consequence=True)
@rule('turns_asked_only_here', 'Scripted turns the engine never asks for are asked for', stage=None, consequence=True)
@rule('model_asked_less', "The model is asked for a turn fewer times than in the engine's run", stage=None, consequence=True)
def model_turns_differ(case: Case) -> Iterator[Reason]:
    """The run asked the model for turns beyond the script, or never asked for some, or sent it messages of its own."""
    fw, engine = case.implied["model"], case.engine.observables["model"]
    scripted = len(case.scenario.model_script)
    asked, engine_asked = {int(t) for t in fw["calls_per_turn"]}, {int(t) for t in engine["calls_per_turn"]}
    extra, fewer = sorted(t for t in asked - engine_asked if t >= scripted), sorted(t for t in engine_asked - asked if t >= scripted)
    lists = turn_list_claims(case)
    if extra:
        said, turns = asked_for(case, extra)
        yield Reason("turns_beyond_script", f"the model was asked for turns beyond the script's {scripted} (counting from 0): {said}",
                     (*turns, *(c for c in lists if c.path[1] == "missing_turns")))
    if fewer:
        yield Reason("turns_never_asked", (
            f"the engine asked the model for turns {', '.join(map(str, fewer))} beyond the script; the framework's run ended "
            f"{case.implied['status']} without asking for them"
        ), (*(claim(case, ("model", "calls_per_turn", str(t))) for t in fewer), *(c for c in lists if c.path[1] == "missing_turns")))
    unasked = sorted(t for t in engine_asked - asked if t < scripted)
    if unasked:
        last = case.framework.steps[-1]
        yield Reason("turns_never_asked", (
            f"scripted turns {', '.join(map(str, unasked))} were never asked for: the framework's run ended {case.implied['status']} "
            f"(last driver step {len(case.framework.steps) - 1}: {last['status']})"
        ), (*(claim(case, ("model", "calls_per_turn", str(t))) for t in unasked), *(c for c in lists if c.path[1] == "unused_turns")))
    only_here = sorted(t for t in asked - engine_asked if t < scripted)
    if only_here:
        said, turns = asked_for(case, only_here)
        yield Reason("turns_asked_only_here", (
            f"the framework's run went on to scripted turns the engine never asked for: {said} (the engine's run ended "
            f"{case.engine.observables['status']}, the framework's {case.implied['status']})"
        ), (*turns, *(c for c in lists if c.path[1] == "unused_turns")))
    less = sorted(t for t in asked & engine_asked if fw["calls_per_turn"][str(t)] < engine["calls_per_turn"][str(t)])
    if less:
        said, turns = asked_for(case, less)
        theirs = ", ".join(f"{times(engine['calls_per_turn'][str(t)])}" for t in less)
        yield Reason("model_asked_less", (
            f"the model was asked for {said} (engine: {theirs}): the framework's run ended {case.implied['status']}"
        ), turns)
    if fw["injected"] != engine["injected"] or fw["marker_roles"] != engine["marker_roles"]:
        said_ = []
        if fw["injected"] != engine["injected"]:
            said_.append(f"the model received {len(fw['injected'])} messages neither the script nor a tool wrote "
                         f"({'; '.join(clip(m) for m in fw['injected'][:2]) or 'none'}; engine: {len(engine['injected'])})")
        if fw["marker_roles"] != engine["marker_roles"]:
            said_.append(f"the tool output's injected instruction reached the model in {', '.join(fw['marker_roles']) or 'no'} messages "
                         f"(engine: {', '.join(engine['marker_roles']) or 'none'})")
        yield Reason("model_saw_other_messages", "; ".join(said_) + mechanism(case, "message_assembly"),
                     (claim(case, ("model", "injected")), claim(case, ("model", "marker_roles"))))

