"""What the rules of ``harness.runner_side.reasons`` read: the two runs of a case, the reason a rule gives, and
small readers of the facts (a call's tool and risk class, the steps that executed it, its counts, the
mechanism a framework names for a role, the leaves a difference carries into).

A reason claims only the leaves whose values follow from the fact it states. The helpers here hold that rule:
``call_claims``, ``replay_claims``, ``pause_claims`` and ``interrupt_claims`` claim a leaf only where the recorded
value is the one the framework's step facts give (what each driver step added to the ledger, left pending, delivered,
where a resume continued); ``stated_after``, ``status_claim``, ``ended_claims`` and ``asked_for`` return a sentence
that says the value with the leaves it says it for (a status, how often a turn was asked). A mutated value the facts
do not give is then no longer claimed, or the reason's text says the new value: ``scripts/check_reasons.py``
measures this on the committed evidence.
"""

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


def other_user_calls(scenario: Scenario) -> dict[str, str]:
    """Scripted calls of a tool that acts for the session's user whose arguments name another user, with the name."""
    named: dict[str, str] = {}
    for turn in scenario.model_script:
        for call in turn.get("tool_calls", ()):
            spec, args = FIXTURE_TOOLS.get(call["name"]), call["arguments"]
            if spec is not None and spec.acts_for and isinstance(args, dict) and args.get(spec.acts_for) not in (None, scenario.user):
                named.setdefault(call["id"], str(args[spec.acts_for]))
    return dict(sorted(named.items()))


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


def stated_after(case: Case, step: int) -> tuple[str, tuple[Path, ...]]:
    """What a difference that begins at driver step ``step`` carries into, stated: the framework's driver steps from
    there whose status differs from the engine's, and its final status when that differs. Returns the sentence to add
    to a reason (empty when nothing differs) and the leaves it states; a reason claims nothing of the run's later course
    that its text does not say (refusals, model turns, pauses and effects have rules and helpers of their own)."""
    mine, theirs = case.framework.observables["step_statuses"], case.engine.observables["step_statuses"]
    claims: list[Path]
    if len(mine) != len(theirs):  # not the same driver steps: the list is one leaf, so say all of it
        said, claims = [f"its driver steps ended {', '.join(mine)} (engine: {', '.join(theirs)})"], [("step_statuses",)]
    else:
        differ = [i for i in range(step, len(mine)) if mine[i] != theirs[i]]
        said = [f"driver step {i} ended {mine[i]} (engine: {theirs[i]})" for i in differ]
        claims = [("step_statuses", str(i)) for i in differ]
    status, engine_status = case.framework.observables["status"], case.engine.observables["status"]
    if status != engine_status:
        said.append(f"the run ended {status} (engine: {engine_status})")
        claims += ended_claims(case)
    return (f"; after it {', '.join(said)}" if said else ""), tuple(claims)


def ended_claims(case: Case) -> tuple[Path, ...]:
    """The leaves that hold the framework's final status, for a reason whose text states it: the status, and the final
    status after an interrupt where it is that same value."""
    after = case.framework.observables["checkpoint_after_interrupt"]
    same = isinstance(after, dict) and after["final_status"] == case.framework.observables["status"]
    return (("status",), *((("checkpoint_after_interrupt", "final_status"),) if same else ()))


def status_claim(case: Case, step: int, status: str) -> tuple[Path, ...]:
    """``step_statuses.<step>``, for a reason whose text states ``status`` as the framework's status of that step, or
    whose fact implies it (a refusal: ``refused``); nothing when the recorded status is another."""
    statuses = case.framework.observables["step_statuses"]
    return (("step_statuses", str(step)),) if step < len(statuses) and statuses[step] == status else ()


_COUNT_KEYS = (("entered", "tool_entries"), ("executed", "executor_entries"), ("effects", "effects"))


def ledger_after(run: Run, step: float = float("inf")) -> dict[str, dict[str, int]]:
    """The ledger counts per call id after driver step ``step``, summed from what each step added (its facts)."""
    out: dict[str, dict[str, int]] = {}
    for fact in run.facts:
        if fact["step"] > step:
            break
        for name, key in _COUNT_KEYS:
            for cid, n in fact.get(name, {}).items():
                out.setdefault(cid, {"tool_entries": 0, "executor_entries": 0, "effects": 0})[key] += n
    return out


def _effects_after(run: Run, cid: str, step: float) -> int | None:
    """The call's effects after ``step`` from the facts, ``None`` while it has no ledger entry (absent from the views)."""
    entry = ledger_after(run, step).get(cid)
    return None if entry is None else entry["effects"]


def replay_claims(case: Case, cid: str) -> tuple[Path, ...]:
    """A call's replay leaves whose values follow from the step facts: its results (as many as the steps delivered; the
    contents are the tool's), whether they are equal (which the results give), and who deduplicated it (the first
    replayed result's deduplicator, or one that dropped a duplicate event, else ``none``)."""
    replay = case.framework.observables["idempotent_replay"]
    if not isinstance(replay, dict) or cid not in replay:
        return ()
    facts, mine = case.framework.facts, replay[cid]
    delivered = [(r, f) for f in facts for r in f.get("results", ()) if r[0] == cid]
    providers = [f.get("dedup_by", "framework") for r, f in delivered if r[1] == "replayed"]
    providers += [f["dedup_by"] for f in facts if f.get("dedup_by") and not f.get("results")]
    out: list[Path] = []
    if len(mine["results"]) == len(delivered):
        out.append(("idempotent_replay", cid, "results"))
    if mine["equal"] == (bool(mine["results"]) and len(set(mine["results"])) == 1):
        out.append(("idempotent_replay", cid, "equal"))
    if mine["provided_by"] == (providers[0] if providers else "none"):
        out.append(("idempotent_replay", cid, "provided_by"))
    return tuple(out)


def call_claims(case: Case, cid: str) -> tuple[Path, ...]:
    """The leaves of a call whose values follow from the framework's step facts (what each driver step added to the
    ledger, which a reason about the call states with its counts and steps): its ledger counts, its effects in the
    replay and schema cells, at the end after a resume, at each kill, each pause and before each decision. Each is
    claimed only where the recorded value is the one the facts add up to: a count the facts do not give is no
    consequence of the reason."""
    fw, obs = case.framework, case.framework.observables
    total = ledger_after(fw).get(cid)
    counts = total or {"tool_entries": 0, "executor_entries": 0, "effects": 0}
    out: list[Path] = [("side_effects", cid)] if obs["side_effects"].get(cid) == total else []
    replay, failed = obs["idempotent_replay"], obs["schema_failure_side_effects"]
    if isinstance(replay, dict) and cid in replay and replay[cid]["effects"] == counts["effects"]:
        out.append(("idempotent_replay", cid, "effects"))
    out += replay_claims(case, cid)
    if isinstance(failed, dict) and failed.get(cid) == {"tool_entered": counts["tool_entries"] > 0, "executor_entries": counts["executor_entries"],
                                                        "effects": counts["effects"]}:
        out.append(("schema_failure_side_effects", cid))
    if risk_of(case.scenario, cid) == "read_only":
        return tuple(out)  # the other views hold non-read-only effects only
    after, state = obs["checkpoint_after_interrupt"], obs["pre_approval_state"]
    if isinstance(after, dict):
        if after["effects_after_resume"].get(cid) == _effects_after(fw, cid, float("inf")):
            out.append(("checkpoint_after_interrupt", "effects_after_resume", cid))
        out += [("checkpoint_after_interrupt", "interrupts", str(i), "effects_before_resume", cid) for i, kill in enumerate(after["interrupts"])
                if kill["effects_before_resume"].get(cid) == _effects_after(fw, cid, kill["step"])]
    if isinstance(state, dict):
        out += [("pre_approval_state", "pauses", str(i), "non_read_only_effects", cid) for i, pause in enumerate(state["pauses"])
                if pause["non_read_only_effects"].get(cid) == _effects_after(fw, cid, pause["step"])]
        out += [("pre_approval_state", "decisions", str(i), "effects_before", cid) for i, decision in enumerate(state["decisions"])
                if decision["effects_before"].get(cid) == _effects_after(fw, cid, decision["step"] - 1)]
    return tuple(out)


def asked_for(case: Case, turns: list[int]) -> tuple[str, tuple[Path, ...]]:
    """How often the framework asked the model for each of ``turns``, said compactly (``turn 0 once, turns 1 to 3 twice
    each, turn 4 never``), and the ``model.calls_per_turn`` leaves that says."""
    calls = case.framework.observables["model"]["calls_per_turn"]
    groups: list[list[int]] = []
    for t in turns:
        if groups and groups[-1][-1] == t - 1 and calls.get(str(t), 0) == calls.get(str(t - 1), 0) and calls.get(str(t), 0):
            groups[-1].append(t)
        else:
            groups.append([t])
    said = [f"turn {g[0]} {times(calls.get(str(g[0]), 0))}" if len(g) == 1 else f"turns {g[0]} to {g[-1]} {times(calls[str(g[0])])} each" for g in groups]
    return ", ".join(said) or "no turn", tuple(("model", "calls_per_turn", str(t)) for t in turns)


def turn_list_claims(case: Case) -> tuple[Path, ...]:
    """The lists of scripted turns never asked for and of turns asked beyond the script, where they are what the framework's
    calls per turn give (a reason that says which turns were asked claims them only then)."""
    model, scripted = case.framework.observables["model"], len(case.scenario.model_script)
    asked = {int(t) for t in model["calls_per_turn"]}
    return ((("model", "unused_turns"),) if model["unused_turns"] == sorted(set(range(scripted)) - asked) else ()) + (
        (("model", "missing_turns"),) if model["missing_turns"] == sorted(t for t in asked if t >= scripted) else ())


def interrupt_claims(case: Case) -> tuple[Path, ...]:
    """The framework's list of interrupts, for a reason about a kill one run met and the other did not, where the list is
    the one its facts give: one interrupt per killed step, each with the effects so far and where the resume after it
    continued."""
    after = case.framework.observables["checkpoint_after_interrupt"]
    if not isinstance(after, dict):
        return (("checkpoint_after_interrupt",),)
    facts = case.framework.facts
    killed = [f["step"] for f in facts if f.get("killed")]
    ends = [*killed[1:], len(facts) - 1]

    def follows(kill: dict[str, Any], until: int) -> bool:
        resumed = next((f.get("resumed") for f in facts[kill["step"] + 1: until + 1] if f.get("resumed")), None)
        return bool(kill["effects_before_resume"] == _non_read_only(case, ledger_after(case.framework, kill["step"])) and kill["resume_position"] == resumed)

    ok: bool = [k["step"] for k in after["interrupts"]] == killed and all(follows(k, until) for k, until in zip(after["interrupts"], ends, strict=False))
    return (("checkpoint_after_interrupt", "interrupts"),) if ok else ()


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


def _non_read_only(case: Case, ledger: dict[str, dict[str, int]]) -> dict[str, int]:
    return {cid: c["effects"] for cid, c in sorted(ledger.items()) if risk_of(case.scenario, cid) != "read_only"}


def _undecided(run: Run) -> list[str]:
    """The calls waiting for a decision at the end, from the facts (``harness.runner_side.observables.undecided_calls``)."""
    waiting: set[str] = set()
    for fact in run.facts:
        if fact["action"] == "restore":
            waiting = set()
        waiting -= {r[0] for r in fact.get("results", ())} | set(fact.get("granted", ()))
        waiting |= set(fact.get("pending", ()))
    return sorted(waiting)


def implicit_follows(case: Case, state: dict[str, Any]) -> bool:
    """The driver's implicit decisions recorded in an approval state are the ones the step facts hold (step, sub-step,
    call and decision, in order)."""
    recorded = [(d["step"], d["sub_step"], d["call_id"], d["decision"]) for d in state.get("implicit_decisions", ())]
    given = [(f["step"], d["sub_step"], d["call_id"], d["decision"]) for f in case.framework.facts for d in f.get("implicit_decision", ())]
    return recorded == given


def _pause_follows(case: Case, pause: dict[str, Any]) -> bool:
    """A pause record is what the facts of its step say: the step ended awaiting approval with these calls pending,
    and the non-read-only effects so far are those the steps added."""
    run, step = case.framework, pause["step"]
    return (step < len(run.steps) and run.steps[step]["status"] == "awaiting_approval" and run.steps[step]["action"] not in ("snapshot", "restore")
            and [c["call_id"] for c in pause["pending"]] == run.facts[step].get("pending", [])
            and pause["args_validated"] == bool(run.facts[step].get("validated"))
            and pause["non_read_only_effects"] == _non_read_only(case, ledger_after(run, step)))


def _approval_state_follows(case: Case, state: dict[str, Any]) -> bool:
    """The whole approval state is what the facts say: every pause (and no other), every decision's effects before it,
    and what is undecided at the end."""
    run = case.framework
    paused = [i for i, s in enumerate(run.steps) if s["status"] == "awaiting_approval" and s["action"] not in ("snapshot", "restore")]
    return ([p["step"] for p in state["pauses"]] == paused and all(_pause_follows(case, p) for p in state["pauses"])
            and all(d["effects_before"] == _non_read_only(case, ledger_after(run, d["step"] - 1)) for d in state["decisions"])
            and state["undecided_at_end"] == _undecided(run) and implicit_follows(case, state))


def pause_claims(case: Case, steps: set[int]) -> tuple[Path, ...]:
    """The approval state a difference at these driver steps accounts for, where the facts give it: the pauses at those
    steps (their pending calls), or the whole list of pauses when the runs paused a different number of times, and what is
    undecided at the end; the whole approval state when only one run has one. Each only where the recorded value is the
    one the step facts give (a pause's effects so far are the calls' own, ``call_claims``)."""
    mine, theirs = case.framework.observables["pre_approval_state"], case.engine.observables["pre_approval_state"]
    if not isinstance(mine, dict) or not isinstance(theirs, dict):
        return (("pre_approval_state",),) if not isinstance(mine, dict) or _approval_state_follows(case, mine) else ()
    out: list[Path] = []
    if len(mine["pauses"]) != len(theirs["pauses"]):
        paused = [i for i, s in enumerate(case.framework.steps) if s["status"] == "awaiting_approval" and s["action"] not in ("snapshot", "restore")]
        if [p["step"] for p in mine["pauses"]] == paused and all(_pause_follows(case, p) for p in mine["pauses"]):
            out.append(("pre_approval_state", "pauses"))
    else:
        out += [("pre_approval_state", "pauses", str(i), key) for i, p in enumerate(mine["pauses"]) if p["step"] in steps and _pause_follows(case, p)
                for key in ("step", "pending")]
    if mine["undecided_at_end"] == _undecided(case.framework):
        out.append(("pre_approval_state", "undecided_at_end"))
    return tuple(out)


def pauses_apart(case: Case, steps: set[int]) -> str | None:
    """When the two runs' pauses differ only at ``steps`` (a refused step is no pause, the same step not refused may be
    one), the sentence saying so; None when they differ anywhere else, or do not differ."""
    mine, theirs = case.framework.observables["pre_approval_state"], case.engine.observables["pre_approval_state"]
    if not isinstance(mine, dict) or not isinstance(theirs, dict) or mine["pauses"] == theirs["pauses"]:
        return None
    def apart(pauses: list[dict[str, Any]], inside: bool) -> list[Any]:
        return [p["step"] if inside else p for p in pauses if (p["step"] in steps) == inside]

    def unvalidated(pauses: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in p.items() if k != "args_validated"} for p in pauses]

    kept_mine, kept_theirs = apart(mine["pauses"], False), apart(theirs["pauses"], False)
    if unvalidated(kept_mine) != unvalidated(kept_theirs):
        return None
    mine_at, theirs_at = ("; ".join(map(pause_text, (p for p in pauses if p["step"] in steps))) or "none" for pauses in (mine["pauses"], theirs["pauses"]))
    said = f"so the runs' pauses differ only at those steps (the framework's pauses there: {mine_at}; the engine's: {theirs_at})"
    if before := [str(p["step"]) for p, q in zip(kept_mine, kept_theirs, strict=True) if p["args_validated"] != q["args_validated"]]:
        said += (f" and in whether the arguments were validated before the pause at driver steps {', '.join(before)} "
                 f"(the framework's: {', '.join(str(p['args_validated']).lower() for p in kept_mine if str(p['step']) in before)})")
    return said


def pause_text(pause: dict[str, Any]) -> str:
    """One pause as a reason states it: the step, the calls waiting, whether their arguments were validated, the effects."""
    effects = ", ".join(f"{c} {n}" for c, n in sorted(pause["non_read_only_effects"].items())) or "none"
    waiting = ", ".join(p["call_id"] for p in pause["pending"]) or "nothing"
    return (f"driver step {pause['step']} waiting for {waiting}, arguments {'validated' if pause['args_validated'] else 'not validated'} first, "
            f"non-read-only effects so far: {effects}")
