"""The rules about calls that ran where the contract would have stopped them: run again, always denied, arguments that
break the schema, another user named."""

from __future__ import annotations

from collections.abc import Iterator

from handwritten.tools import RiskClass
from harness.runner_side.judge.case import Case
from harness.runner_side.judge.facts import (
    at,
    call_claims,
    count,
    mechanism,
    other_user_calls,
    risk_of,
    steps_with,
    times,
    tool_of,
)
from harness.runner_side.judge.registry import rule
from harness.runner_side.judge.values import Reason
from harness.runner_side.observe.observables import invalid_call_ids_of


@rule('executed_again', 'Runs a tool call again (a repeated call id, a resumed or restored state)', stage='idempotency')
def executed_again(case: Case) -> Iterator[Reason]:
    """A call's executor ran more often, or took effect more often, than the engine's."""
    fw, engine = case.framework, case.engine
    for cid in sorted(case.implied["side_effects"]):
        runs, effects = count(fw, cid, "executor_entries"), count(fw, cid, "effects")
        engine_runs, engine_effects = count(engine, cid, "executor_entries"), count(engine, cid, "effects")
        if (effects > engine_effects and effects > 1) or (runs > engine_runs and runs > 1):
            yield Reason("executed_again", (
                f"{cid} ({tool_of(case.scenario, cid)}): {runs} executor entries and {effects} effects where the engine had "
                f"{engine_runs} and {engine_effects}, executed at {at(steps_with(fw, 'executed', cid))}{mechanism(case, 'tool_dispatch')}"
            ), call_claims(case, cid))


@rule('denied_tool_ran', 'Runs a tool the contract always denies', stage='policy')
def denied_tool_ran(case: Case) -> Iterator[Reason]:
    """A tool the contract always denies entered its executor."""
    for cid in sorted(case.implied["side_effects"]):
        if risk_of(case.scenario, cid) == RiskClass.ALWAYS_DENY.value and count(case.framework, cid, "executor_entries"):
            yield Reason("denied_tool_ran", (
                f"{cid} ({tool_of(case.scenario, cid)}, always denied by the contract) ran: {count(case.framework, cid, 'executor_entries')} executor "
                f"entries, {count(case.framework, cid, 'effects')} effects at {at(steps_with(case.framework, 'executed', cid))}; no policy stage stopped it"
                f"{mechanism(case, 'tool_dispatch')}"
            ), call_claims(case, cid))


@rule('invalid_args_ran', "Hands arguments that break the tool's strict schema to the tool", stage='schema')
def invalid_args_ran(case: Case) -> Iterator[Reason]:
    """A call whose arguments break the tool's strict schema reached the tool function."""
    for cid, error in invalid_call_ids_of(case.scenario).items():
        entered = count(case.framework, cid, "tool_entries")
        if entered:
            yield Reason("invalid_args_ran", (
                f"{cid}'s arguments break {tool_of(case.scenario, cid)}'s strict schema ({error}) yet reached the tool: {entered} tool entries, "
                f"{count(case.framework, cid, 'executor_entries')} executor entries, {count(case.framework, cid, 'effects')} effects"
                f"{mechanism(case, 'tool_dispatch')}"
            ), call_claims(case, cid))


@rule('other_user_ran', "Runs a tool that acts for the session's user on a call whose arguments name another user", stage='policy')
def other_user_ran(case: Case) -> Iterator[Reason]:
    """A call of a tool that acts for the session's user, whose arguments name another user (the engine refuses it),
    entered the tool's executor."""
    for cid, named in other_user_calls(case.scenario).items():
        runs = count(case.framework, cid, "executor_entries")
        if runs:
            yield Reason("other_user_ran", (
                f"{cid} ({tool_of(case.scenario, cid)}, which acts for the session's user {case.scenario.user!r}) named {named!r} in its arguments, "
                f"which the engine refuses; the framework entered the tool {times(count(case.framework, cid, 'tool_entries'))} and its executor "
                f"{times(runs)}, at {at(steps_with(case.framework, 'executed', cid))}{mechanism(case, 'tool_dispatch')}"
            ), call_claims(case, cid))

