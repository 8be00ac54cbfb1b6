"""The framework's observables as its facts imply them: the values a claim vouches for (``Case.implied``).

Computed as ``harness.runner_side.observe.observables.observe`` computes them from the raw run, but from what the evidence stores:
the driver steps, what each step did, the roles of every model request and a wire run's request records. The few leaves
no fact holds are taken as observed, within a structure the facts give (``harness.runner_side.judge.facts``' docstring
lists them).
"""

from __future__ import annotations

from typing import Any

from harness.records import StepRecord
from harness.runner_side.judge.facts import (
    NO_COUNTS,
    final_status,
    killed_steps,
    ledger_after,
    model_calls,
    non_read_only,
    open_approvals,
    paused_steps,
    tool_of,
    undecided_at_end,
)
from harness.runner_side.judge.values import ABSENT, Run
from harness.runner_side.observe.mcp import client_answers
from harness.runner_side.observe.observables import DECISIONS, NA, mcp_cell, replayed_call_ids, schema_failure
from harness.runner_side.observe.wire import wire_observable
from harness.scenarios import Scenario


def implied(scenario: Scenario, run: Run) -> dict[str, Any]:
    """The observables of ``run`` as its facts imply them, computed as ``harness.runner_side.observe.observables.observe``
    computes them from the raw run, with the few leaves no fact holds taken as observed (see the module's docstring)."""
    observed = run.observables
    asked = model_calls(run)
    scripted = len(scenario.model_script)
    model = {**observed["model"], "calls_per_turn": asked, "missing_turns": sorted(int(t) for t in asked if int(t) >= scripted),
             "unused_turns": sorted(set(range(scripted)) - {int(t) for t in asked})}
    ledger = ledger_after(run)
    return {
        "status": final_status(run),
        "step_statuses": [s["status"] for s in run.steps],
        "refusals": [s["refusal"] for s in run.steps if s["refusal"]],
        "side_effects": ledger,
        "model": model,
        "schema_failure_side_effects": schema_failure(scenario, ledger),
        "pre_approval_state": _approval_state(scenario, run),
        "idempotent_replay": _replay(scenario, run, ledger),
        "checkpoint_after_interrupt": _after_interrupt(scenario, run),
        "wire": _wire(scenario, run),
        "mcp": _mcp(scenario, run),
    }


def _approval_state(scenario: Scenario, run: Run) -> Any:
    observed = run.observables["pre_approval_state"]
    seen = {p["step"]: p for p in observed["pauses"]} if isinstance(observed, dict) else {}
    pauses = []
    for step in paused_steps(run):
        fact = run.facts[step] if step < len(run.facts) else {}
        entries = {e["call_id"]: e for e in seen.get(step, {}).get("pending", ())}
        pauses.append({"step": step, "pending": [entries.get(cid, {"call_id": cid}) for cid in fact.get("pending", ())],
                       "args_validated": bool(fact.get("validated")), "non_read_only_effects": non_read_only(scenario, ledger_after(run, step))})
    decisions = [{"step": i, "action": s["action"], "call_id": scenario.driver[i]["call_id"],
                  "effects_before": non_read_only(scenario, ledger_after(run, i - 1)) if i else {}}
                 for i, s in enumerate(run.steps) if s["action"] in DECISIONS]
    args = {(d["step"], d["sub_step"]): d["args"] for d in observed.get("implicit_decisions", ())} if isinstance(observed, dict) else {}
    implicit = [{"step": f["step"], "sub_step": d["sub_step"], "call_id": d["call_id"], "tool": tool_of(scenario, d["call_id"]),
                 "args": args.get((f["step"], d["sub_step"]), ABSENT), "decision": d["decision"]} for f in run.facts for d in f.get("implicit_decision", ())]
    if not pauses and not decisions and not implicit:
        return NA
    state = {"pauses": pauses, "decisions": decisions, "undecided_at_end": undecided_at_end(run)}
    return state | ({"implicit_decisions": implicit} if implicit else {})


def _replay(scenario: Scenario, run: Run, ledger: dict[str, dict[str, int]]) -> Any:
    ids = replayed_call_ids(scenario)
    if not ids:
        return NA
    observed = run.observables["idempotent_replay"]
    event_dedup = [f["dedup_by"] for f in run.facts if f.get("dedup_by") and not f.get("results")]
    cells = {}
    for cid in ids:
        delivered = [(r, f.get("dedup_by", "framework")) for f in run.facts for r in f.get("results", ()) if r[0] == cid]
        said = observed.get(cid, {}).get("results", ()) if isinstance(observed, dict) else ()
        results = list(said) if len(said) == len(delivered) else [ABSENT] * len(delivered)  # the texts are the tool's; their number the facts'
        providers = [by for r, by in delivered if r[1] == "replayed"] + event_dedup
        cells[cid] = {"results": results, "equal": bool(results) and ABSENT not in results and len(set(results)) == 1,
                      "effects": ledger.get(cid, NO_COUNTS)["effects"], "provided_by": providers[0] if providers else "none"}
    return cells


def _after_interrupt(scenario: Scenario, run: Run) -> Any:
    if not any(f.action == "kill" for f in scenario.faults):
        return NA
    observed = run.observables["checkpoint_after_interrupt"]
    reported = {i["step"]: i for i in observed["interrupts"]} if isinstance(observed, dict) else {}
    kills = killed_steps(run)
    interrupts = []
    for crash, until in zip(kills, [*kills[1:], len(run.steps) - 1][: len(kills)], strict=True):
        resume = next((j for j in range(crash + 1, until + 1) if run.facts[j].get("resumed")), None)
        column = reported.get(crash, {})  # what the column reported of the resume itself: the call it found pending, the approvals it kept
        interrupts.append({
            "step": crash,
            "resumable": resume is not None and (bool(run.facts[resume].get("killed")) or run.steps[resume]["status"] not in ("crashed", "error")),
            "resume_position": run.facts[resume]["resumed"] if resume is not None else None,
            "pending_call": column.get("pending_call", ABSENT) if resume is not None else None,
            "approval_survives": _survives(run, crash, resume),
            "effects_before_resume": non_read_only(scenario, ledger_after(run, crash)),
        })
    return {"interrupts": interrupts, "effects_after_resume": non_read_only(scenario, ledger_after(run)), "final_status": final_status(run)}


def _survives(run: Run, crash: int, resume: int | None) -> bool | None:
    """Whether the approvals given and not yet used at the kill at ``crash`` (``open_approvals``) were all found given
    by the resume; None when none was open."""
    given = open_approvals(run, crash)
    if not given:
        return None
    return resume is not None and set(given) <= set(run.facts[resume].get("resumed_approved", ()))


def _wire(scenario: Scenario, run: Run) -> Any:
    observed = run.observables.get("wire", NA)
    if run.wire is None:
        return NA
    steps = [StepRecord(index=i, action=s["action"], status=s["status"], session_status=s["status"]) for i, s in enumerate(run.steps)]
    derived = wire_observable(run.wire, steps, scenario.tools, None)
    derived["schema_diff"] = observed.get("schema_diff", ABSENT) if isinstance(observed, dict) else ABSENT  # the tools the requests carried
    return derived


def _mcp(scenario: Scenario, run: Run) -> Any:
    """From the runner's MCP server's records of the run's client; a run without them (the engine's own MCP client,
    whose server traced it) is taken as observed."""
    if run.mcp is None:
        return run.observables.get("mcp", NA)
    return mcp_cell(scenario, client_answers(run.mcp))
