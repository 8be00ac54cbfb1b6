"""What the rules of ``harness.runner_side.reasons`` read: the two runs of a case, the reason a rule gives, and
small readers of the facts (a call's tool and risk class, the steps that executed it, its counts, the
mechanism a framework names for a role, the leaves a difference carries into)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.fixture_tools import FIXTURE_TOOLS
from harness.scenarios import Scenario

Path = tuple[str, ...]


@dataclass(frozen=True)
class Run:
    """One column's measured run of a scenario: its observables, its step facts and its steps."""

    observables: dict[str, Any]
    facts: list[dict[str, Any]]
    steps: list[dict[str, Any]]


@dataclass(frozen=True)
class Case:
    """What the rules read: the scenario, the engine's run, the framework's run and what the framework names."""

    scenario: Scenario
    engine: Run
    framework: Run
    mechanisms: dict[str, str] = field(default_factory=dict)  # role -> module:qualname
    constants: dict[str, dict[str, Any]] = field(default_factory=dict)  # role -> {ref, value}
    mode: str = "defaults"  # the framework's mode: in contract its glue passes the scenario's bounds


@dataclass(frozen=True)
class Reason:
    """One rule's account of a difference: the rule's id, the sentence, and the differing leaves it explains."""

    rule: str
    text: str
    claims: tuple[Path, ...]


def tool_of(scenario: Scenario, call_id: str) -> str:
    return next((c["name"] for t in scenario.model_script for c in t.get("tool_calls", ()) if c["id"] == call_id), "?")


def risk_of(scenario: Scenario, call_id: str) -> str:
    tool = FIXTURE_TOOLS.get(tool_of(scenario, call_id))
    return tool.risk.value if tool else "unknown"


def steps_with(run: Run, kind: str, call_id: str) -> list[dict[str, Any]]:
    return [f for f in run.facts if f.get(kind, {}).get(call_id)]


def at(facts: list[dict[str, Any]]) -> str:
    return ", ".join(f"driver step {f['step']} ({f['action']})" for f in facts) or "no driver step"


def count(run: Run, call_id: str, key: str) -> int:
    return int(run.observables["side_effects"].get(call_id, {}).get(key, 0))


def mechanism(case: Case, role: str) -> str:
    """``its <role> (`module:qualname`)``, or nothing for a column that names no mechanism (our own)."""
    ref = case.mechanisms.get(role)
    return f" (its {role.replace('_', ' ')}: `{ref}`)" if ref else ""


def later(case: Case, step: int) -> tuple[Path, ...]:
    """What a difference that begins at ``step`` carries into: the statuses from that step on, the refusals
    and the final status, the model turns asked for and the effects of calls that ran or never ran after it."""
    n = len(case.framework.steps)
    return (("status",), ("refusals",), ("model", "unused_turns"), ("model", "calls_per_turn"),
            *(("step_statuses", str(i)) for i in range(step, n)), ("checkpoint_after_interrupt", "final_status"),
            ("pre_approval_state", "undecided_at_end"), ("pre_approval_state", "pauses"))


def call_claims(cid: str) -> tuple[Path, ...]:
    return (("side_effects", cid), ("idempotent_replay", cid), ("checkpoint_after_interrupt", "effects_after_resume", cid),
            ("checkpoint_after_interrupt", "interrupts", "*", "effects_before_resume", cid),
            ("pre_approval_state", "pauses", "*", "non_read_only_effects", cid), ("pre_approval_state", "decisions", "*", "effects_before", cid))


def clip(message: Any, width: int = 80) -> str:
    text = message if isinstance(message, str) else str(message)
    return text if len(text) <= width else text[: width - 1] + "…"


def times(n: int) -> str:
    """``never``, ``once``, ``twice`` or ``N times``."""
    return {0: "never", 1: "once", 2: "twice"}.get(n, f"{n} times")


def differing_calls(case: Case) -> list[str]:
    """The call ids whose ledger counts differ between the two runs."""
    mine, theirs = case.framework.observables["side_effects"], case.engine.observables["side_effects"]
    return sorted(c for c in set(mine) | set(theirs) if mine.get(c) != theirs.get(c))


def pause_claims(case: Case) -> tuple[Path, ...]:
    """The pauses and what is undecided at the end; the whole approval state when only one side has one."""
    whole = not isinstance(case.engine.observables["pre_approval_state"], dict) or not isinstance(case.framework.observables["pre_approval_state"], dict)
    return (("pre_approval_state",),) if whole else (("pre_approval_state", "pauses"), ("pre_approval_state", "undecided_at_end"))
