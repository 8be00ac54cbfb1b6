"""The rules about a run that ends where the engine answers the model and goes on: a reused call id, arguments the
schema stage answers, a tool the agent was not given, arguments that are not JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from harness.runner_side.judge.case import Case
from harness.runner_side.judge.facts import (
    call_claims,
    claim,
    clip,
    count,
    mechanism,
    request_roles,
    stated_after,
    status_claim,
    tool_of,
)
from harness.runner_side.judge.registry import rule
from harness.runner_side.judge.said import Says, StepEnded
from harness.runner_side.judge.values import Reason, Run
from harness.runner_side.observe.observables import invalid_call_ids_of
from harness.scenarios import Scenario


@rule('reused_id_ended_run', 'Ends the run in an exception when the model reuses a call id with other arguments', stage='idempotency')
def reused_id_ended_run(case: Case) -> Iterator[Reason]:
    """The model sent a call id again with other arguments (the same key, other arguments: an error for the model, never
    a replay), and the framework ended the driver step in an exception where the engine's step did not end in error."""
    for cid, turns in _reused_with_other_args(case.scenario).items():
        failed = _ended_in_exception(case)
        if failed is None:
            continue
        say = Says()
        tail, after = stated_after(case, failed + 1, say)
        answered = [r for f in case.engine.facts for r in f.get("results", []) if r[0] == cid]
        how = f" (its results for {cid}: {', '.join(r[1] for r in answered)})" if answered else ""
        yield Reason("reused_id_ended_run", (
            f"the model sent {cid} in turns {', '.join(map(str, turns))}, with other arguments after the first; the framework ended driver "
            f"step {failed} in an error ({case.framework.facts[failed]['raised']}) where the engine's step ended "
            f"{case.engine.steps[failed]['status']}{how}{tail}"
            f"{mechanism(case, 'tool_dispatch')}"
        ), (*status_claim(case, failed, "error"), *after), say.all())
        return  # one exception ended the step: one reason, whichever reused id it met


@rule('invalid_args_ended_run', 'Ends the run in an exception on arguments the schema stage would answer', stage='schema')
def invalid_args_ended_run(case: Case) -> Iterator[Reason]:
    """A call whose arguments break the tool's strict schema (not JSON, not an object, ...), which the engine answers as
    a result the model can correct, met a framework that ended the driver step in an exception instead."""
    invalid = invalid_call_ids_of(case.scenario)
    asked = {int(t) for t in case.implied["model"]["calls_per_turn"]}
    sent = [(cid, turn) for turn, t in enumerate(case.scenario.model_script) for cid in (c["id"] for c in t.get("tool_calls", ()))
            if cid in invalid and turn in asked]
    failed = _ended_in_exception(case)
    if not sent or failed is None or _reused_with_other_args(case.scenario):
        return  # a reused id ending the run is reused_id_ended_run's
    cid, turn = sent[-1]  # the last invalid call the model was asked to send: the run got no further
    say = Says()
    tail, after = stated_after(case, failed + 1, say)
    yield Reason("invalid_args_ended_run", (
        f"the model sent {cid} ({tool_of(case.scenario, cid)}) in turn {turn} with arguments that break its strict schema "
        f"({clip(invalid[cid])}); the framework ended driver step {failed} in an error ({case.framework.facts[failed]['raised']}) "
        f"where the engine answered the call as an error result and its step ended {case.engine.steps[failed]['status']}{tail}"
    ), (*status_claim(case, failed, "error"), *after, *call_claims(case, cid)), say.all())


@rule('unknown_tool_ended_run', 'Ends the run in an exception when the model calls a tool it was not given', stage='schema')
def unknown_tool_ended_run(case: Case) -> Iterator[Reason]:
    """The model called a tool the scenario does not offer (the engine answers it as an error result the model can
    read, and goes on), and the framework ended the driver step in an exception instead."""
    asked = {int(t) for t in case.implied["model"]["calls_per_turn"]}
    sent = [(c["id"], c["name"], turn) for turn, t in enumerate(case.scenario.model_script) if turn in asked
            for c in t.get("tool_calls", ()) if c["name"] not in case.scenario.tools]  # fmt: skip
    failed = _ended_in_exception(case)
    if not sent or failed is None or _reused_with_other_args(case.scenario):
        return  # a reused id ending the run is reused_id_ended_run's
    cid, name, turn = sent[-1]  # the last such call the model was asked to send: the run got no further
    say = Says()
    tail, after = stated_after(case, failed + 1, say)
    yield Reason("unknown_tool_ended_run", (
        f"the model called {name} ({cid}, turn {turn}), a tool the agent was not given; the framework ended driver step {failed} in an "
        f"error ({case.framework.facts[failed]['raised']}) where the engine answered the call as an error result and its step ended "
        f"{case.engine.steps[failed]['status']}{tail}{mechanism(case, 'tool_dispatch')}"
    ), (*status_claim(case, failed, "error"), *after), say.all())


def _ended_in_exception(case: Case) -> int | None:
    """The first driver step the framework ended in an exception (its ``raised`` fact) where the engine's did not end
    in error, if any."""
    return next((f["step"] for f, s in zip(case.framework.facts, case.framework.steps, strict=True)
                 if f.get("raised") and s["status"] == "error" and case.engine.steps[f["step"]]["status"] != "error"), None)


def _reused_with_other_args(scenario: Scenario) -> dict[str, list[int]]:
    """Call ids the script sends in more than one turn with arguments unlike the first's, with the turns that send them."""
    first: dict[str, Any] = {}
    turns: dict[str, list[int]] = {}
    for index, turn in enumerate(scenario.model_script):
        for call in turn.get("tool_calls", ()):
            first.setdefault(call["id"], call["arguments"])
            turns.setdefault(call["id"], []).append(index)
    return {cid: ts for cid, ts in sorted(turns.items()) if len(ts) > 1 and any(
        c["arguments"] != first[cid] for t in ts for c in scenario.model_script[t].get("tool_calls", ()) if c["id"] == cid)}


@rule('invalid_call_dropped', 'Drops a tool call whose arguments are not JSON: the run ends as if the model had answered', stage='schema')
def invalid_call_dropped(case: Case) -> Iterator[Reason]:
    """A call whose arguments are not JSON got no result at all where the engine answered it with its schema error and
    asked the model again: the framework took the turn for one without that call, and asked for no turn after it."""
    asked = {int(t) for t in case.implied["model"]["calls_per_turn"]}
    engine_asked = {int(t) for t in case.engine.observables["model"]["calls_per_turn"]}
    for t, turn in enumerate(case.scenario.model_script):
        for call in turn.get("tool_calls", ()):
            cid, raw = call["id"], call["arguments"]
            answered = [f["step"] for f in case.engine.facts if any(r[0] == cid for r in f.get("results", ()))]
            if not isinstance(raw, str) or _parses(raw) or t not in asked or not answered:
                continue
            step = answered[0]  # the framework's same driver step: no result for the call there, and its run did not go on
            if any(r[0] == cid for r in case.framework.facts[step].get("results", ())) or count(case.framework, cid, "tool_entries"):
                continue
            if _went_on(case.framework, t):
                continue
            say = Says()
            tail, after = stated_after(case, step, say)
            later = f" and asked for no turn after turn {t}" if t + 1 not in asked else f" ({say(StepEnded.of(case.framework, step))})"
            yield Reason("invalid_call_dropped", (
                f"{cid}'s arguments are not JSON ({clip(raw)}); the engine answered it with its schema error at driver step {step}"
                f"{f' and asked the model for turn {t + 1}' if t + 1 in engine_asked else ''}; the framework gave it no result in driver step {step}"
                f"{later}{tail}{mechanism(case, 'loop')}"
            ), (*after, *(claim(case, ("model", "calls_per_turn", str(x))) for x in sorted(engine_asked) if x > t)), say.all())


def _went_on(run: Run, turn: int) -> bool:
    """Whether the framework asked the model for the turn after ``turn`` in the same run: a request for it whose
    messages after the model's last turn are no new user message (a later event's run asks for it after one)."""
    return any(roles.count("assistant") == turn + 1 and "user" not in roles[len(roles) - roles[::-1].index("assistant"):]
               for roles in request_roles(run))


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True

