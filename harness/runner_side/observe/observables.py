"""Framework-neutral observables, computed the same way for every column.

A column contributes only ``StepFacts`` (what its own mechanisms say happened in each
step); everything else comes from the scenario, the supervisor's step records and the
ledger, which no column can touch. A contract column that a scenario does not exercise
is ``"n/a"``.
"""

from __future__ import annotations

from typing import Any

from handwritten.schema import ArgsValidator
from handwritten.tools import RiskClass
from harness.fixture_tools import FIXTURE_TOOLS
from harness.records import ScenarioRun, StepFacts
from harness.runner_side.observe.mcp import client_answers, mcp_observable, traced_answers
from harness.runner_side.observe.wire import wire_observable
from harness.scenarios import Scenario

NA = "n/a"
RESUME_POSITIONS = ("model_turn", "awaiting_approval", "before_execute", "after_execute", "reconcile")
OBSERVABLES = (
    "status",
    "step_statuses",
    "refusals",
    "side_effects",
    "model",
    "schema_failure_side_effects",
    "pre_approval_state",
    "idempotent_replay",
    "checkpoint_after_interrupt",
    "wire",
    "mcp",
)


OPTIONAL = ("wire", "mcp")
"""The observables a run has only where its model or its tools are reached as the mode has them: ``wire`` (the model over
the wire) and ``mcp`` (the tools behind an MCP server); a cell the engine's run has none of is not compared."""


def expected_names(expected: dict[str, Any]) -> list[str]:
    """The observables an ``expected`` block is checked on: all but ``wire``, which only a block that gives it (a
    scenario meeting a fault of the model's endpoint, played in wire mode) is checked on, and ``mcp``: the engine's
    check runs in process, with no MCP client (its own MCP client is the reference of the ``mcp`` mode, cell by cell).
    Any other scenario's nine hold on the wire and over MCP too."""
    return [n for n in OBSERVABLES if n != "mcp" and (n != "wire" or "wire" in expected)]


DECISIONS = ("approve", "reject", "misuse_token")
CONTRACT_COLUMNS = ("schema_failure_side_effects", "pre_approval_state", "idempotent_replay", "checkpoint_after_interrupt")

_VALIDATORS = {name: ArgsValidator(tool.schema) for name, tool in FIXTURE_TOOLS.items()}


def observe(
    run: ScenarioRun, facts: list[StepFacts], model: dict[str, Any], wire: list[dict[str, Any]] | None = None, tool_objects: dict[str, Any] | None = None,
    mcp: dict[str, Any] | None = None, over_mcp: bool = False,
) -> dict[str, Any]:
    """The observables of one scenario run, keyed as in ``OBSERVABLES``; ``wire``: the scripted server's records of a
    wire run's requests (``harness.runner_side.run.servers.wire``), None for a run in process; ``tool_objects``: the JSON schema of
    each offered tool's framework object, as the column process read it in wire mode (``ColumnAdapter.tool_schemas``);
    ``mcp``: what the runner's MCP server saw of an ``mcp`` run's client (``harness.runner_side.observe.mcp.mcp_client``),
    None for any other run; ``over_mcp``: whether the run's tools are behind an MCP server (``harness.modes.over_mcp``):
    without the runner's records, the ``mcp`` observable is what the column's own server traced (the engine's client)."""
    steps = run.steps
    answers = client_answers(mcp) if mcp is not None else traced_answers([e for s in steps for e in s.trace]) if over_mcp else None
    final_ledger = steps[-1].ledger
    return {
        "status": final_status(run, facts),
        "step_statuses": [s.status for s in steps],
        "refusals": [s.refusal for s in steps if s.refusal],
        "side_effects": {cid: {k: c[k] for k in ("tool_entries", "executor_entries", "effects")} for cid, c in final_ledger.items()},
        "model": {k: model[k] for k in ("calls_per_turn", "missing_turns", "unused_turns", "injected", "marker_roles")},
        "schema_failure_side_effects": schema_failure(run.scenario, final_ledger),
        "pre_approval_state": _pre_approval(run, facts),
        "idempotent_replay": _replay(run, facts, final_ledger),
        "checkpoint_after_interrupt": _after_interrupt(run, facts),
        "wire": wire_observable(wire, steps, run.scenario.tools, tool_objects),
        "mcp": mcp_cell(run.scenario, answers),
    }


def mcp_cell(scenario: Scenario, answers: dict[str, list[str]] | None) -> Any:
    """The ``mcp`` observable of a run whose MCP client met these answers per call (``observe.mcp.mcp_observable``;
    None: its tools are not behind an MCP server)."""
    return mcp_observable(scenario, answers, bool(invalid_call_ids_of(scenario)))


def invalid_call_ids_of(scenario: Scenario) -> dict[str, str]:
    """Scripted calls whose arguments break their tool's strict schema (or that name no fixture tool), with the first error."""
    invalid: dict[str, str] = {}
    for turn in scenario.model_script:
        for call in turn.get("tool_calls", ()):
            validator = _VALIDATORS.get(call["name"])
            errors = validator.check(call["arguments"]).errors if validator else (f"no fixture tool {call['name']}",)
            if errors:
                invalid.setdefault(call["id"], errors[0])
    return dict(sorted(invalid.items()))


def schema_failure(scenario: Scenario, ledger: dict[str, dict[str, Any]]) -> Any:
    """Per scripted call whose arguments break its tool's schema: whether the tool was entered, its executor entries and
    effects, from the ledger counts (``n/a`` for a scenario without such a call)."""
    ids = sorted(invalid_call_ids_of(scenario))
    if not ids:
        return NA
    zero = {"tool_entries": 0, "executor_entries": 0, "effects": 0}
    return {
        cid: {
            "tool_entered": ledger.get(cid, zero)["tool_entries"] > 0,
            "executor_entries": ledger.get(cid, zero)["executor_entries"],
            "effects": ledger.get(cid, zero)["effects"],
        }
        for cid in ids
    }


def _non_read_only_effects(ledger: dict[str, dict[str, Any]]) -> dict[str, int]:
    return {
        cid: c["effects"]
        for cid, c in ledger.items()
        if c["tool"] not in FIXTURE_TOOLS or FIXTURE_TOOLS[c["tool"]].risk is not RiskClass.READ_ONLY
    }


def _pre_approval(run: ScenarioRun, facts: list[StepFacts]) -> Any:
    """Approval state at every pause and before every decision, and what is still undecided at the end.

    ``pauses``: each step that ran and ended awaiting approval, with the pending calls, whether their
    arguments were validated before the pause and the non-read-only effects so far by call id.
    ``decisions``: each approve / reject / token-misuse step, with the non-read-only effects by call
    id measured before it (a framework that runs one call of a turn before another is decided shows
    here). ``undecided_at_end``: ``undecided_calls``. ``implicit_decisions`` (only when there are any): the pauses on
    calls the contract would not ask about that the driver answered with the contract's decision within a step
    (``adapters.column``), each with its driver step and sub-step, the call, its tool and arguments as the framework
    asked, and the decision: the framework asked, which the contract never does.
    """
    pauses = [
        {
            "step": step.index,
            "pending": sorted(step.pending, key=lambda p: p["call_id"]),
            "args_validated": bool(fact.validated_before_pause),
            "non_read_only_effects": _non_read_only_effects(step.ledger),
        }
        for step, fact in zip(run.steps, facts, strict=True)
        if step.status == "awaiting_approval" and step.action not in ("snapshot", "restore")  # those only report the state
    ]
    decisions = [
        {
            "step": step.index,
            "action": step.action,
            "call_id": run.scenario.driver[step.index]["call_id"],
            "effects_before": _non_read_only_effects(run.steps[i - 1].ledger) if i else {},
        }
        for i, step in enumerate(run.steps)
        if step.action in DECISIONS
    ]
    implicit = [
        {"step": step.index, **{k: d[k] for k in ("sub_step", "call_id", "tool", "args", "decision")}}
        for step, fact in zip(run.steps, facts, strict=True)
        for d in fact.implicit_decisions
    ]
    if not pauses and not decisions and not implicit:
        return NA
    state = {"pauses": pauses, "decisions": decisions, "undecided_at_end": undecided_calls(run, facts)}
    return state | ({"implicit_decisions": implicit} if implicit else {})


def final_status(run: ScenarioRun, facts: list[StepFacts]) -> str:
    """The run's status at the end; a run that left a call undecided is not ``completed``, whatever its
    framework says: it is ``awaiting_approval``, the status of a run with a call waiting for a decision."""
    status = run.steps[-1].session_status
    return "awaiting_approval" if status == "completed" and undecided_calls(run, facts) else status


def undecided_calls(run: ScenarioRun, facts: list[StepFacts]) -> list[str]:
    """Calls waiting for a decision when the run ends: asked about (pending) at some step and not approved,
    nor answered with a tool result (run, rejected or refused), in any later step. An approval lost in a
    crash and asked for again counts as undecided until it is given again; a restore replaces what was
    waiting with what the restored state waits for."""
    waiting: set[str] = set()
    for step, fact in zip(run.steps, facts, strict=True):
        if step.action == "restore":  # the restored state is the run's state now: it waits for what it shows, nothing else
            waiting = set()
        waiting -= {r["call_id"] for r in fact.results} | set(fact.approvals_granted)
        waiting |= {p["call_id"] for p in step.pending}  # the state at the end of the step: asked again
    return sorted(waiting)


def replayed_call_ids(scenario: Scenario) -> list[str]:
    """The calls the replay cell holds: a call id the script sends more than once, and, in a scenario that restores a
    state or delivers an event again, every call that is not read-only."""
    seen: dict[str, int] = {}
    for turn in scenario.model_script:
        for call in turn.get("tool_calls", ()):
            seen[call["id"]] = seen.get(call["id"], 0) + 1
    ids = {cid for cid, n in seen.items() if n > 1}
    if any(s["action"] in ("restore", "deliver_again") for s in scenario.driver):
        ids |= {
            c["id"]
            for turn in scenario.model_script
            for c in turn.get("tool_calls", ())
            if c["name"] in FIXTURE_TOOLS and FIXTURE_TOOLS[c["name"]].risk is not RiskClass.READ_ONLY
        }
    return sorted(ids)


def _replay(run: ScenarioRun, facts: list[StepFacts], ledger: dict[str, dict[str, Any]]) -> Any:
    ids = replayed_call_ids(run.scenario)
    if not ids:
        return NA
    event_dedup = [f.dedup_by for f in facts if f.dedup and not f.results]
    cells = {}
    for cid in ids:
        delivered = [(r, f.dedup_by) for f in facts for r in f.results if r["call_id"] == cid]
        results = [r["content"] for r, _ in delivered]
        providers = [by for r, by in delivered if r["status"] == "replayed"] + event_dedup
        cells[cid] = {
            "results": results,
            "equal": bool(results) and len(set(results)) == 1,
            "effects": ledger.get(cid, {}).get("effects", 0),
            "provided_by": providers[0] if providers else "none",
        }
    return cells


def _after_interrupt(run: ScenarioRun, facts: list[StepFacts]) -> Any:
    """Every kill and what its resume found: ``interrupts`` (one per killed step), the non-read-only
    effects at the end and the final status. A scenario whose kill never fired has no interrupts."""
    if not any(f.action == "kill" for f in run.scenario.faults):
        return NA
    kills = [i for i, s in enumerate(run.steps) if s.killed]
    return {
        "interrupts": [_interrupt(run, facts, crash, until) for crash, until in zip(kills, [*kills[1:], len(run.steps) - 1][: len(kills)], strict=True)],
        "effects_after_resume": _non_read_only_effects(run.steps[-1].ledger),
        "final_status": final_status(run, facts),
    }


def _interrupt(run: ScenarioRun, facts: list[StepFacts], crash: int, until: int) -> dict[str, Any]:
    """One kill at step ``crash``: the first resume after it (up to and including step ``until``, the next
    kill or the last step), where it continued, and whether an approval given before the kill survived."""
    steps = run.steps
    resume = next((j for j in range(crash + 1, until + 1) if facts[j].resumed is not None), None)
    resumed = facts[resume].resumed if resume is not None else None
    # approvals given and not yet used up to the kill: an approval is used once its call's body runs (the executor
    # entered, whatever came of it) or its result is delivered; a call asked about again has none
    open_approvals: dict[str, int] = {}  # call id -> its executor entries when the approval was given
    executed: dict[str, int] = {}
    for step, fact in zip(steps[: crash + 1], facts[: crash + 1], strict=True):
        open_approvals |= {cid: executed.get(cid, 0) for cid in fact.approvals_granted}
        executed = {cid: c["executor_entries"] for cid, c in step.ledger.items()}
        delivered = {r["call_id"] for r in fact.results}
        open_approvals = {cid: n for cid, n in open_approvals.items() if cid not in delivered and executed.get(cid, 0) == n}
        if step.index < crash:
            open_approvals = {cid: n for cid, n in open_approvals.items() if cid not in {p["call_id"] for p in step.pending}}
    survives = None
    if open_approvals:
        survives = resumed is not None and set(open_approvals) <= set(resumed["approved_call_ids"])
    continued = resume is not None and (steps[resume].killed or steps[resume].status not in ("crashed", "error"))
    return {
        "step": crash,
        "resumable": continued,  # a resume killed by a later fault did continue: that kill is the next interrupt
        "resume_position": resumed["position"] if resumed else None,
        "pending_call": resumed["pending_call"] if resumed else None,
        "approval_survives": survives,
        "effects_before_resume": _non_read_only_effects(steps[crash].ledger),
    }
