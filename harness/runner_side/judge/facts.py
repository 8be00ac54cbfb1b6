"""What the rules read and the values they vouch for: small readers of a run's facts, and ``implied``, the
framework's observables as its facts imply them.

The facts are what the evidence stores beside the observables: the driver steps (status, refusal), what each step did
(``facts``: ledger counts added, calls left pending, approvals granted, results delivered, kills, resumes, the session's
status where it is not the step's), the roles of every model request and a wire run's request records. A claim's value
is read from ``implied`` (or given by the rule itself, as ``status_claim``'s status), never from the observable it
explains: an observed value the facts do not give is then left unexplained.

A few leaves have no fact of their own: text the model received that neither the script nor a tool wrote
(``model.injected``, ``model.marker_roles``), the arguments a pending call carried, a tool's result text, the call a
resume found pending (the column's own report of the resume), and the tool schemas
a wire request carried. ``implied`` takes those from the observed value, within a structure the facts give (the calls
pending at a step are the facts'; their arguments are as observed): a reason that claims them states them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from handwritten.tools import RiskClass
from harness.fixture_tools import FIXTURE_TOOLS, InjectedToolError
from harness.runner_side.judge.explain import value_at
from harness.runner_side.judge.said import RunEnded, Says, StepEnded
from harness.runner_side.judge.values import ABSENT, Claim, Path, Run, final_status, undecided_at_end
from harness.scenarios import Scenario

if TYPE_CHECKING:  # the case is built from these modules (``case`` imports ``implied``, which reads them)
    from harness.runner_side.judge.case import Case

__all__ = ["ABSENT", "Claim", "Path", "Run", "final_status", "undecided_at_end"]

_COUNT_KEYS = (("entered", "tool_entries"), ("executed", "executor_entries"), ("effects", "effects"))
NO_COUNTS = {"tool_entries": 0, "executor_entries": 0, "effects": 0}


def ledger_after(run: Run, step: float = float("inf")) -> dict[str, dict[str, int]]:
    """The ledger counts per call id after driver step ``step``, summed from what each step added (its facts)."""
    out: dict[str, dict[str, int]] = {}
    for fact in run.facts:
        if fact["step"] > step:
            break
        for name, key in _COUNT_KEYS:
            for cid, n in fact.get(name, {}).items():
                out.setdefault(cid, dict(NO_COUNTS))[key] += n
    return dict(sorted(out.items()))


def request_roles(run: Run) -> Iterator[list[str]]:
    """The roles of each model request of the run, whole (a long run stores a request that extends the one before as
    ``+ <the roles it added>``: ``harness.runner_side.observe.observation.compact_requests``)."""
    roles: list[str] = []
    for request in run.requests:
        roles = [*roles, *request[2:].split()] if request.startswith("+ ") else request.split()
        yield roles


def model_calls(run: Run) -> dict[str, int]:
    """How often the run asked the model for each turn, from the roles of its requests (the turn a request asks for
    is the number of assistant messages it carries: ``harness.script_log.ScriptJudge.turn_of``)."""
    calls: dict[str, int] = {}
    for roles in request_roles(run):
        turn = str(roles.count("assistant"))
        calls[turn] = calls.get(turn, 0) + 1
    return dict(sorted(calls.items(), key=lambda kv: int(kv[0])))


def non_read_only(scenario: Scenario, ledger: dict[str, dict[str, int]]) -> dict[str, int]:
    """The effects of every call in ``ledger`` that is not read-only."""
    return {cid: c["effects"] for cid, c in sorted(ledger.items()) if risk_of(scenario, cid) != RiskClass.READ_ONLY.value}


def paused_steps(run: Run) -> list[int]:
    """The driver steps that ran and ended awaiting approval (a snapshot or a restore only reports the state)."""
    return [i for i, s in enumerate(run.steps) if s["status"] == "awaiting_approval" and s["action"] not in ("snapshot", "restore")]


def killed_steps(run: Run) -> list[int]:
    """The driver steps whose worker was killed."""
    return [f["step"] for f in run.facts if f.get("killed")]


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
    """A call's ledger count (``tool_entries``, ``executor_entries``, ``effects``), as the run's step facts add it up."""
    return ledger_after(run).get(call_id, NO_COUNTS)[key]


def claim(case: Case, path: Path) -> Claim:
    """The claim of ``path`` with the value the framework's facts imply there (``Case.implied``)."""
    return Claim(path, value_at(case.implied, path))


def mechanism(case: Case, role: str) -> str:
    """``its <role> (`module:qualname`)``, or nothing for a column that names no mechanism (our own)."""
    ref = case.mechanisms.get(role)
    return f" (its {role.replace('_', ' ')}: `{ref}`)" if ref else ""


def stated_after(case: Case, step: int, say: Says) -> tuple[str, tuple[Claim, ...]]:
    """What a difference that begins at driver step ``step`` carries into, stated: the framework's driver steps from
    there whose status differs from the engine's, and its final status when that differs. Returns the sentence to add
    to a reason (empty when nothing differs; its words rendered from the statements it gives ``say``) and the leaves it
    states; a reason claims nothing of the run's later course that its text does not say (refusals, model turns, pauses
    and effects have rules and helpers of their own)."""
    mine, theirs = case.implied["step_statuses"], case.engine.observables["step_statuses"]
    claims: list[Claim]
    if len(mine) != len(theirs):  # not the same driver steps: the list is one leaf, so say all of it
        said, claims = [f"its driver steps ended {', '.join(mine)} (engine: {', '.join(theirs)})"], [claim(case, ("step_statuses",))]
    else:
        differ = [i for i in range(step, len(mine)) if mine[i] != theirs[i]]
        said = [f"{say(StepEnded(i, mine[i]))} (engine: {theirs[i]})" for i in differ]
        claims = [claim(case, ("step_statuses", str(i))) for i in differ]
    status, engine_status = case.implied["status"], case.engine.observables["status"]
    if status != engine_status:
        said.append(f"{say(RunEnded(status))} (engine: {engine_status})")
        claims += ended_claims(case)
    return (f"; after it {', '.join(said)}" if said else ""), tuple(claims)


def ended_claims(case: Case) -> tuple[Claim, ...]:
    """The leaves that hold the framework's final status, for a reason whose text states it: the status, and the final
    status after an interrupt (both the status its last step and what it left undecided give)."""
    after = case.implied["checkpoint_after_interrupt"]
    return (claim(case, ("status",)), *((claim(case, ("checkpoint_after_interrupt", "final_status")),) if isinstance(after, dict) else ()))


def status_claim(case: Case, step: int, status: str) -> tuple[Claim, ...]:
    """``step_statuses.<step>`` with ``status``, for a reason whose fact implies it (a refusal: ``refused``; an exception:
    ``error``) or whose text states it as the step's record gives it."""
    return (Claim(("step_statuses", str(step)), status),) if step < len(case.framework.steps) else ()


def replay_claims(case: Case, cid: str) -> tuple[Claim, ...]:
    """A call's replay leaves: its results (as many as the steps delivered; the texts are the tool's), whether they are
    equal, and who deduplicated it (the first replayed result's deduplicator, or one that dropped a duplicate event)."""
    replay = case.implied["idempotent_replay"]
    if not isinstance(replay, dict) or cid not in replay:
        return ()
    return tuple(claim(case, ("idempotent_replay", cid, key)) for key in ("results", "equal", "provided_by"))


def call_claims(case: Case, cid: str) -> tuple[Claim, ...]:
    """The leaves of a call that its step facts give (what each driver step added to the ledger, which a reason about
    the call states with its counts and steps): its ledger counts, its effects in the replay and schema cells, at the
    end after a resume, at each kill, each pause and before each decision."""
    obs = case.implied
    out = [claim(case, ("side_effects", cid))]
    replay, failed = obs["idempotent_replay"], obs["schema_failure_side_effects"]
    if isinstance(replay, dict) and cid in replay:
        out += [claim(case, ("idempotent_replay", cid, "effects")), *replay_claims(case, cid)]
    if isinstance(failed, dict) and cid in failed:
        out.append(claim(case, ("schema_failure_side_effects", cid)))
    if risk_of(case.scenario, cid) == "read_only":
        return tuple(out)  # the other views hold non-read-only effects only
    after, state = case.implied["checkpoint_after_interrupt"], case.implied["pre_approval_state"]
    if isinstance(after, dict):
        out.append(claim(case, ("checkpoint_after_interrupt", "effects_after_resume", cid)))
        out += [claim(case, ("checkpoint_after_interrupt", "interrupts", str(i), "effects_before_resume", cid)) for i in range(len(after["interrupts"]))]
    if isinstance(state, dict):
        out += [claim(case, ("pre_approval_state", "pauses", str(i), "non_read_only_effects", cid)) for i in range(len(state["pauses"]))]
        out += [claim(case, ("pre_approval_state", "decisions", str(i), "effects_before", cid)) for i in range(len(state["decisions"]))]
    return tuple(out)


def asked_for(case: Case, turns: list[int]) -> tuple[str, tuple[Claim, ...]]:
    """How often the framework asked the model for each of ``turns`` (its requests say), said compactly (``turn 0 once,
    turns 1 to 3 twice each, turn 4 never``), and the ``model.calls_per_turn`` claims that says."""
    calls = case.implied["model"]["calls_per_turn"]
    groups: list[list[int]] = []
    for t in turns:
        if groups and groups[-1][-1] == t - 1 and calls.get(str(t), 0) == calls.get(str(t - 1), 0) and calls.get(str(t), 0):
            groups[-1].append(t)
        else:
            groups.append([t])
    said = [f"turn {g[0]} {times(calls.get(str(g[0]), 0))}" if len(g) == 1 else f"turns {g[0]} to {g[-1]} {times(calls[str(g[0])])} each" for g in groups]
    return ", ".join(said) or "no turn", tuple(claim(case, ("model", "calls_per_turn", str(t))) for t in turns)


def turn_list_claims(case: Case) -> tuple[Claim, ...]:
    """The lists of scripted turns never asked for and of turns asked beyond the script, as the requests give them."""
    return (claim(case, ("model", "unused_turns")), claim(case, ("model", "missing_turns")))


def interrupt_claims(case: Case) -> tuple[Claim, ...]:
    """The framework's list of interrupts, for a reason about a kill one run met and the other did not: one interrupt
    per killed step, each with the effects so far and where the resume after it continued."""
    return (claim(case, ("checkpoint_after_interrupt", "interrupts")),)


def asked_in(fact: dict[str, Any]) -> set[str]:
    """The calls a driver step's run asked about: those left pending, and those of every pause the driver answered in it."""
    implicit = fact.get("implicit_decision", ())
    return {*fact.get("pending", ()), *(d["call_id"] for d in implicit), *(c for d in implicit for c in d["pending"])}


def clip(message: Any, width: int = 80) -> str:
    text = message if isinstance(message, str) else str(message)
    return text if len(text) <= width else text[: width - 1] + "…"


def times(n: int) -> str:
    """``never``, ``once``, ``twice`` or ``N times``."""
    return {0: "never", 1: "once", 2: "twice"}.get(n, f"{n} times")


def differing_calls(case: Case) -> list[str]:
    """The call ids whose ledger counts differ between the two runs."""
    mine, theirs = case.implied["side_effects"], case.engine.observables["side_effects"]
    return sorted(c for c in set(mine) | set(theirs) if mine.get(c) != theirs.get(c))


def open_approvals(run: Run, crash: int) -> list[str]:
    """The calls whose approval was given and not yet used when driver step ``crash`` was killed, as
    ``harness.runner_side.observe.observables`` counts them: an approval is used once its call's body ran or its result was
    delivered, and a call asked about again before the kill has none."""
    given: dict[str, int] = {}
    executed: dict[str, int] = {}
    for fact in run.facts[: crash + 1]:
        given |= {cid: executed.get(cid, 0) for cid in fact.get("granted", ())}
        for cid, n in fact.get("executed", {}).items():
            executed[cid] = executed.get(cid, 0) + n
        delivered = {r[0] for r in fact.get("results", ())}
        asked = set(fact.get("pending", ())) if fact["step"] < crash else set()
        given = {cid: n for cid, n in given.items() if cid not in delivered | asked and executed.get(cid, 0) == n}
    return sorted(given)


def implicit_follows(case: Case, state: dict[str, Any]) -> bool:
    """The driver's implicit decisions recorded in an approval state are the ones the step facts hold (step, sub-step,
    call and decision, in order)."""
    recorded = [(d["step"], d["sub_step"], d["call_id"], d["decision"]) for d in state.get("implicit_decisions", ())]
    given = [(f["step"], d["sub_step"], d["call_id"], d["decision"]) for f in case.framework.facts for d in f.get("implicit_decision", ())]
    return recorded == given


def pause_claims(case: Case, steps: set[int]) -> tuple[Claim, ...]:
    """The approval state a difference at these driver steps accounts for: the pauses at those steps (their step and
    pending calls), or the whole list of pauses when the runs paused at other driver steps, and what is undecided
    at the end; the whole approval state when only one run has one (a pause's effects so far are the calls' own,
    ``call_claims``)."""
    mine, theirs = case.implied["pre_approval_state"], case.engine.observables["pre_approval_state"]
    if not isinstance(mine, dict) or not isinstance(theirs, dict):
        return (claim(case, ("pre_approval_state",)),)
    out: list[Claim] = []
    if [p["step"] for p in mine["pauses"]] != [p["step"] for p in theirs["pauses"]]:  # paused at other steps: no pause pairs with one
        out.append(claim(case, ("pre_approval_state", "pauses")))
    else:
        out += [claim(case, ("pre_approval_state", "pauses", str(i), key)) for i, p in enumerate(mine["pauses"]) if p["step"] in steps
                for key in ("step", "pending")]
    out.append(claim(case, ("pre_approval_state", "undecided_at_end")))
    return tuple(out)


def pauses_apart(case: Case, steps: set[int]) -> str | None:
    """When the two runs' pauses differ only at ``steps`` (a refused step is no pause, the same step not refused may be
    one), the sentence saying so; None when they differ anywhere else, or do not differ."""
    mine, theirs = case.implied["pre_approval_state"], case.engine.observables["pre_approval_state"]
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


FAULT_RAISES = {"raise": f"{InjectedToolError.__module__}.{InjectedToolError.__qualname__}", "timeout": TimeoutError.__name__}
"""What the fixture world raises for each fault action that does not kill (``harness.column_side.fixtures.faults``)."""


def exception_default(case: Case, cid: str, step: int | None) -> str:
    """The framework's measured default for a tool's exception (its constant ``tool_error``: ``message`` or ``raise``),
    quoted only where this run's facts show that default at work on ``cid``: ``raise`` where a fault's exception ended
    driver step ``step``, ``message`` where ``cid``'s result reached the model as an error and no step ended in it."""
    constant = case.constants.get("tool_error")
    if constant is None:
        return ""
    facts = case.framework.facts
    raised = step is not None and any(f["step"] == step and f.get("raised") in FAULT_RAISES.values() for f in facts)
    delivered = any(list(r) == [cid, "error"] for f in facts for r in f.get("results", ()))
    shown = "raise" if raised else "message" if delivered and step is None else None
    if constant["value"] != shown:
        return ""
    does = "re-raises it out of the run" if shown == "raise" else "hands it to the model as the call's result"
    return f"; by default its tool dispatch {does} (`tool_error`: {shown}, `{constant['ref']}`, measured in the pinned environment)"
