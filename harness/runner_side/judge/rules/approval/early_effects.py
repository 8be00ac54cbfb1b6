"""The rule about effects that came before a decision: a call never asked about, or one already approved, took effect
(or ran without one: a flaky tool's failing attempts) while another call waited."""

from __future__ import annotations

from collections.abc import Iterator

from harness.runner_side.judge.case import Case
from harness.runner_side.judge.facts import (
    asked_in,
    claim,
)
from harness.runner_side.judge.registry import rule
from harness.runner_side.judge.said import EffectsSoFar, ExecutedSoFar, Says
from harness.runner_side.judge.values import Reason


@rule('effect_before_decision', 'Lets calls that were never asked about take effect while a call waits for approval', stage='approval')
@rule('approved_call_ran_early', 'Runs an approved call before the other calls waiting with it are decided', stage='approval')
def decisions_met_other_effects(case: Case) -> Iterator[Reason]:
    """When the run paused, or a decision was given, a call that never paused had already taken effect where the
    engine's had not, or had run with no effect where the engine had not run it at all (calls that were asked about
    are the decisions' rules)."""
    fw, engine = case.implied["pre_approval_state"], case.engine.observables["pre_approval_state"]
    if not isinstance(fw, dict) or not isinstance(engine, dict):
        return

    def unasked(effects: dict[str, int], before: dict[str, int], step: int) -> dict[str, int]:
        asked = {c for f in case.framework.facts if f["step"] <= step for c in asked_in(f)}
        return {c: n for c, n in effects.items() if _early(c, n, before) and c not in asked}

    def approved(effects: dict[str, int], before: dict[str, int], step: int, waiting: set[str], implicit_through: int) -> dict[str, int]:
        """Calls both runs approved before ``step`` that are not the ones waiting or decided now (one approved only
        here is the decision rules'; one asked about again after a lost approval is waiting, not early), and calls
        the driver approved implicitly by driver step ``implicit_through`` (the contract runs them without asking)."""
        granted = {c for f in case.framework.facts if f["step"] < step for c in f.get("granted", ())}
        granted &= {c for f in case.engine.facts if f["step"] < step for c in f.get("granted", ())}
        granted |= {d["call_id"] for f in case.framework.facts if f["step"] <= implicit_through
                    for d in f.get("implicit_decision", ()) if d["decision"] == "approve"}
        return {c: n for c, n in effects.items() if _early(c, n, before) and c in granted - waiting}

    for i, (pause, engine_pause) in enumerate(zip(fw["pauses"], engine["pauses"], strict=False)):
        waiting = {c["call_id"] for c in pause["pending"]}
        if ran := approved(pause["non_read_only_effects"], engine_pause["non_read_only_effects"], pause["step"], waiting, pause["step"]):
            pending = ", ".join(sorted(c["call_id"] for c in pause["pending"]))
            say = Says()
            had = _had(case, say, ran, engine_pause["non_read_only_effects"], pause["step"])
            yield Reason("approved_call_ran_early", (
                f"when the run paused at driver step {pause['step']} for {pending}, the already approved {had}"
            ), tuple(claim(case, ("pre_approval_state", "pauses", str(i), "non_read_only_effects", c)) for c in ran), say.all())
    for i, (mine, theirs) in enumerate(zip(fw["decisions"], engine["decisions"], strict=False)):
        if ran := approved(mine["effects_before"], theirs["effects_before"], mine["step"], {mine["call_id"]}, mine["step"] - 1):
            say = Says()
            yield Reason("approved_call_ran_early", (
                f"before the {mine['action']} of {mine['call_id']} at driver step {mine['step']}, the already approved "
                f"{_had(case, say, ran, theirs['effects_before'], mine['step'] - 1)}"
            ), tuple(claim(case, ("pre_approval_state", "decisions", str(i), "effects_before", c)) for c in ran), say.all())

    for i, (pause, engine_pause) in enumerate(zip(fw["pauses"], engine["pauses"], strict=False)):
        if ran := unasked(pause["non_read_only_effects"], engine_pause["non_read_only_effects"], pause["step"]):
            pending = ", ".join(sorted(c["call_id"] for c in pause["pending"]))
            say = Says()
            had = _had(case, say, ran, engine_pause["non_read_only_effects"], pause["step"])
            yield Reason("effect_before_decision", (
                f"when the run paused at driver step {pause['step']} for {pending}, {had}"
            ), tuple(claim(case, ("pre_approval_state", "pauses", str(i), "non_read_only_effects", c)) for c in ran), say.all())
    for i, (mine, theirs) in enumerate(zip(fw["decisions"], engine["decisions"], strict=False)):
        if ran := unasked(mine["effects_before"], theirs["effects_before"], mine["step"]):
            say = Says()
            had = _had(case, say, ran, theirs["effects_before"], mine["step"] - 1)
            yield Reason("effect_before_decision", (
                f"before the {mine['action']} of {mine['call_id']} at driver step {mine['step']}, {had}"
            ), tuple(claim(case, ("pre_approval_state", "decisions", str(i), "effects_before", c)) for c in ran), say.all())


def _early(call: str, effects: int, engine: dict[str, int]) -> bool:
    """More effects than the engine's by then, or a run of the call (no effect) where the engine had not run it."""
    return effects > engine.get(call, 0) or call not in engine


def _had(case: Case, say: Says, ran: dict[str, int], engine: dict[str, int], step: int) -> str:
    """Each call's effects by the end of driver ``step`` (a call that ran with no effect: its runs), with the engine's."""
    def had(call: str, n: int) -> str:
        if n:
            return f"{say(EffectsSoFar.of(case.framework, call, step))} (engine: {engine.get(call, 0)})"
        return f"{say(ExecutedSoFar.of(case.framework, call, step))} (engine: not run)"
    return ", ".join(had(c, n) for c, n in ran.items())

