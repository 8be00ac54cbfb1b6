"""From what a column process reports to an observation record, computed in the runner's process.

The column process only reports raw material: its supervisor's step records (statuses
and ledger counts measured after each step), the column's own step facts and the
scripted model's log summary. The observables are computed here, outside the column's
reach, so no column (or a framework patching shared code) can bend the observer.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from harness.records import STATUSES, ScenarioRun, StepFacts, StepRecord
from harness.runner_side.observe.mcp import mcp_client
from harness.runner_side.observe.observables import observe
from harness.scenarios import Scenario


def observation(scenario: Scenario, raw: dict[str, Any], measured_exceptions: frozenset[str] = frozenset(), over_mcp: bool = False) -> dict[str, Any]:
    """The observation record of one scenario: status, observables, steps, trace, model requests, detail.

    A step that ended in an exception the column's ``MAPPING.md`` lists as the framework's own way of
    ending a run is a measured outcome: its run status is ``error``. Any other exception is a failure
    to measure, like an adapter exception, a worker that died unexpectedly or a timeout, or the ``error`` of a raw
    record whose column process failed on the scenario outside its steps (``harness.column_side.column_main``).
    ``over_mcp``: whether the run's tools are behind an MCP server (``harness.modes.over_mcp``)."""
    steps = [_measured(StepRecord(**s), measured_exceptions) for s in raw["steps"]]
    run = ScenarioRun(scenario, Path("."), steps)
    client = mcp_client(scenario, raw["mcp"], [e for s in steps for e in s.trace]) if raw.get("mcp") is not None else None
    observables = observe(run, [StepFacts(**f) for f in raw["facts"]], raw["model"], raw.get("wire"), raw.get("tool_objects"), client, over_mcp)
    errors = [raw["error"]] if raw.get("error") else []  # the column process failed on this scenario outside its steps
    errors += [s.error for s in steps if s.error]
    errors += [f"adapter reported a status outside the closed set: {s.status!r}/{s.session_status!r}" for s in steps
               if s.status not in STATUSES or s.session_status not in STATUSES]
    return {
        "status": "error" if errors else "ok",
        "error": errors[0].splitlines()[0] if errors else None,
        "observables": observables,
        "steps": [stored_step(s) for s in steps],
        "trace": [{"driver_step": s.index, **e} for s in steps for e in s.trace],
        "facts": step_facts(steps, [StepFacts(**f) for f in raw["facts"]]),
        "model_requests": compact_requests(raw["model"]["requests"]),
        "detail": raw["detail"],
    } | ({"wire_requests": [wire_request(r) for r in raw["wire"]]} if raw.get("wire") is not None else {}) | ({"mcp_client": client} if client is not None else {})


WIRE_REQUEST_FIELDS = ("step", "turn", "api", "stream", "answer", "retry_after", "fault", "idempotency_key", "retry_count", "timeout", "bytes", "messages")


def wire_request(request: dict[str, Any]) -> dict[str, Any]:
    """One request of a wire run as the evidence keeps it (its messages and tools are in the observables)."""
    return {k: request.get(k) for k in WIRE_REQUEST_FIELDS} | {k: request[k] for k in WIRE_REQUEST_MARKS if request.get(k) is not None}


WIRE_REQUEST_MARKS = ("waited", "dropped_after")
"""Kept only where the server set them: whether the client waited out a slow answer, and how many requests past the
run's bound followed this last record unrecorded (what ``wire_observable`` reads besides the fields above)."""


LONG_RUN_REQUESTS = 64
"""Above this many model requests a record keeps each request that extends the one before as what it added."""


def compact_requests(requests: list[str]) -> list[str]:
    """The roles of every model request. Each request repeats the whole conversation so far, so a long run's list
    grows with the square of its turns: above ``LONG_RUN_REQUESTS`` requests, one that extends the request before it
    is kept as ``+ <the roles it added>`` (a shorter run keeps every request whole, as it reads best)."""
    if len(requests) <= LONG_RUN_REQUESTS:
        return requests
    kept = requests[:1]
    for before, request in zip(requests, requests[1:], strict=False):
        kept.append(f"+ {request[len(before) + 1:]}" if request.startswith(f"{before} ") else request)
    return kept


def stored_step(step: StepRecord) -> dict[str, Any]:
    """A driver step as an observation record stores it: its action, status, refusal and the first line of its error."""
    return {"action": step.action, "status": step.status, "refusal": step.refusal, "error": step.error.splitlines()[0] if step.error else None}


_COUNTS = (("entered", "tool_entries"), ("executed", "executor_entries"), ("effects", "effects"))


def step_facts(steps: list[StepRecord], facts: list[StepFacts]) -> list[dict[str, Any]]:
    """What each driver step did, in neutral terms (the material the reasons are derived from; empty parts left out):
    the ledger counts it added per call id (``entered`` the tool function, ``executed`` the body, ``effects``
    committed), the session's status after it where that is not the step's own (``session``: a refused step leaves the
    session as it was), whether the worker was ``killed``, the exception that ended it (``raised``), the calls left ``pending`` (and, when the
    step paused, whether their arguments were ``validated`` before it), the approvals it ``granted``, the tool
    ``results`` it delivered (``[call id, status]`` in order), where a resume continued (``resumed``) and the approvals it
    found given (``resumed_approved``), who
    deduplicated a delivery (``dedup_by``), the decisions ``held`` for a batched turn, how a misused approval reached the
    framework (``approval_object``), what each effect committed in the step ran with (``ran_with``: per call id the
    effects as the fixture tool committed them, read from the runner's ledger) and the driver's ``implicit_decision``s at its sub-steps (the contract's
    answer to a pause on a call it would not ask about: sub-step, which pause of the step, call id, decision and the calls pending then)."""
    out: list[dict[str, Any]] = []
    before: dict[str, dict[str, Any]] = {}
    for step, fact in zip(steps, facts, strict=True):
        entry: dict[str, Any] = {"step": step.index, "action": step.action}
        for name, key in _COUNTS:
            added = {cid: c[key] - before.get(cid, {}).get(key, 0) for cid, c in sorted(step.ledger.items())}
            if any(added.values()):
                entry[name] = {cid: n for cid, n in added.items() if n}
        parts = {
            "session": step.session_status if step.session_status != step.status else None,
            "killed": step.killed,
            "raised": step.raised,
            "pending": sorted(p["call_id"] for p in step.pending),
            "validated": fact.validated_before_pause if step.pending else None,
            "granted": sorted(fact.approvals_granted),
            "results": [[r["call_id"], r["status"]] for r in fact.results],
            "resumed": fact.resumed["position"] if fact.resumed else None,
            "resumed_approved": sorted(fact.resumed["approved_call_ids"]) if fact.resumed else None,
            "dedup_by": fact.dedup_by if fact.dedup else None,
            "held": sorted(fact.held),
            "approval_object": fact.approval_object,
            "ran_with": step.effects_committed,
            "implicit_decision": [{k: d[k] for k in ("sub_step", "pause", "call_id", "decision", "pending")} for d in fact.implicit_decisions],
        }
        entry.update({k: v for k, v in parts.items() if v})
        before = step.ledger
        out.append(entry)
    return out


def _measured(step: StepRecord, measured_exceptions: frozenset[str]) -> StepRecord:
    """A step ended by an exception MAPPING.md declares (the type itself, or a class it derives from) is a measured outcome."""
    if step.raised is None or not measured_exceptions & {step.raised, *step.raised_bases}:
        return step
    return dataclasses.replace(step, error=None)  # status and session status stay "error": the run failed
