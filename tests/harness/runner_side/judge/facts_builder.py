"""Runs for the judge's tests, built from typed driver steps the way production builds them.

Production never writes a run's facts by hand: the driver records a ``StepRecord`` of each driver step (its status,
the session's, the calls left pending, the ledger's counts after it), the column reports the step's ``StepFacts``
(``harness.records``), and ``step_facts`` (``harness.runner_side.observe.observation``) turns both into the facts the
rules read, as ``observation`` stores them beside each step's action, status, refusal and error. A test that writes
those dicts by hand can hold a shape production never makes (a key ``step_facts`` never writes, a count it would
have left out, a list it would have sorted) and so pass on input no run can give.

Here a test says what each step did in the facts' own terms (``step``: what it added to the ledger per call, what it
left pending, granted, delivered, ...), ``records`` turns the steps into the typed records (the ledger's counts summed
as the runner measures them after each step), and ``run`` builds the ``Run`` the rules read from them through
``step_facts`` itself. ``steps_of`` reads a stored run back into steps, so a test can change one thing of a committed
run and build it again (``rerun``). A step no driver could record is refused with a ``ValueError``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.records import STATUSES, StepFacts, StepRecord
from harness.runner_side.judge import Run
from harness.runner_side.observe.observation import step_facts, stored_step

_COUNTS = (("entered", "tool_entries"), ("executed", "executor_entries"), ("effects", "effects"))  # the facts' name, the ledger's


@dataclass(frozen=True)
class Step:
    """One driver step in the facts' terms (``step`` builds one; ``dataclasses.replace`` changes one). ``entered``,
    ``executed`` and ``effects`` are what the step added to the ledger per call id; ``ran_with`` the effects' payloads
    (``None``: an empty payload per effect); ``session`` the session's status after it where that is not the step's own
    (``None``: the step's own, or for a refused step the session's status before it); ``results`` the ``(call id,
    status)`` pairs it delivered; ``resumed`` the position a resume continued at and ``resumed_approved`` the approvals
    it found; ``implicit_decision`` the driver's answers as the facts keep them. The tool names, arguments and result
    contents the records also hold are left empty: ``step_facts`` reads none of them."""

    action: str
    status: str
    session: str | None = None
    refusal: str | None = None
    error: str | None = None
    killed: bool = False
    raised: str | None = None
    pending: tuple[str, ...] = ()
    validated: bool | None = None
    granted: tuple[str, ...] = ()
    results: tuple[tuple[str, str], ...] = ()
    entered: Mapping[str, int] = field(default_factory=dict)
    executed: Mapping[str, int] = field(default_factory=dict)
    effects: Mapping[str, int] = field(default_factory=dict)
    ran_with: Mapping[str, Sequence[Any]] | None = None
    resumed: str | None = None
    resumed_approved: tuple[str, ...] = ()
    dedup_by: str | None = None
    held: tuple[str, ...] = ()
    approval_object: Mapping[str, Any] | None = None
    implicit_decision: tuple[Mapping[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if wrong := self.impossible():
            raise ValueError(f"no driver records this {self.action} step: {wrong}")

    def impossible(self) -> str | None:
        """Why no driver step is recorded like this one, or ``None``: what the driver (``harness.column_side.driver``)
        and the fixture world (``harness.column_side.fixtures.world``) record by construction."""
        if self.status not in STATUSES or (self.session is not None and self.session not in STATUSES):
            return f"a status outside the closed set: {self.status!r}/{self.session!r}"
        if self.session == "refused":
            return "refused is a step's answer, never the session's status"
        if self.killed and (self.status != "crashed" or self.session not in (None, "crashed") or self.pending or self.refusal or self.raised):
            return "a killed worker's step is crashed, its session crashed, with nothing pending, no refusal and no exception"
        if self.raised and (self.status != "error" or self.session not in (None, "error") or self.pending or self.refusal):
            return "a step that raised is error, its session error, with nothing pending and no refusal"
        counts = [(name, cid, n) for name, _ in _COUNTS for cid, n in getattr(self, name).items()]
        if bad := [f"{name} {cid}: {n}" for name, cid, n in counts if not isinstance(n, int) or n < 1]:
            return f"a ledger count a step adds is at least 1: {bad}"
        if more := {cid: n for cid, n in self.effects.items() if n > self.executed.get(cid, 0)}:
            return f"each effect is committed after an executor entry of its own, in the same step: {more} (executed {dict(self.executed)})"
        if self.ran_with is not None and {cid: len(p) for cid, p in self.ran_with.items() if p} != dict(self.effects):
            return f"ran_with holds the effects the ledger counts: {dict(self.ran_with)} against {dict(self.effects)}"
        if self.resumed_approved and not self.resumed:
            return "approvals a resume found with no resume"
        if self.validated is not None and not self.pending:
            return "validated is said only of the calls a step left pending"
        if self.dedup_by not in (None, "framework", "glue"):
            return f"a delivery is deduplicated by the framework or the glue, not {self.dedup_by!r}"
        return None

    def records(self, index: int, ledger: dict[str, dict[str, Any]], session_before: str | None) -> tuple[StepRecord, StepFacts]:
        """The step as the driver records it (``ledger``: the counts after it) and as the column reports it."""
        session = self.session or (session_before if self.status == "refused" else self.status)
        if session is None:
            raise ValueError(f"refused step {index} ({self.action}) with no session before it: say its session")
        ran_with = self.ran_with if self.ran_with is not None else {cid: [{}] * n for cid, n in self.effects.items()}
        record = StepRecord(index, self.action, self.status, session, refusal=self.refusal, error=self.error, raised=self.raised, killed=self.killed,
                            pending=[{"call_id": cid, "tool": "", "args": {}} for cid in self.pending], ledger=ledger,
                            effects_committed={cid: list(p) for cid, p in sorted(ran_with.items()) if p})
        facts = StepFacts(
            results=[{"call_id": cid, "status": status, "content": ""} for cid, status in self.results],
            approvals_granted=list(self.granted),
            resumed={"position": self.resumed, "pending_call": None, "approved_call_ids": list(self.resumed_approved)} if self.resumed else None,
            dedup=self.dedup_by is not None,
            dedup_by=self.dedup_by or "framework",
            validated_before_pause=self.validated,
            held=list(self.held),
            approval_object=dict(self.approval_object) if self.approval_object is not None else None,
            implicit_decisions=[{"tool": "", "args": {}, **d} for d in self.implicit_decision],
        )
        return record, facts


def step(action: str, status: str | None = None, *, session: str | None = None, refusal: str | None = None, error: str | None = None,
         killed: bool = False, raised: str | None = None, pending: Sequence[str] = (), validated: bool | None = None, granted: Sequence[str] = (),
         results: Sequence[Sequence[str]] = (), entered: Mapping[str, int] | None = None, executed: Mapping[str, int] | None = None,
         effects: Mapping[str, int] | None = None, ran_with: Mapping[str, Sequence[Any]] | None = None, resumed: str | None = None,
         resumed_approved: Sequence[str] = (), dedup_by: str | None = None, held: Sequence[str] = (), approval_object: Mapping[str, Any] | None = None,
         implicit_decision: Sequence[Mapping[str, Any]] = ()) -> Step:
    """One driver step, its keywords named after the facts' keys. ``status`` by default: ``crashed`` for a killed
    worker, ``error`` for a step that raised, ``awaiting_approval`` for one that left calls pending, else ``completed``."""
    if status is None:
        status = "crashed" if killed else "error" if raised else "awaiting_approval" if pending else "completed"
    return Step(action, status, session, refusal, error, killed, raised, tuple(pending), validated, tuple(granted),
                tuple((cid, result) for cid, result in results), dict(entered or {}), dict(executed or {}), dict(effects or {}),
                dict(ran_with) if ran_with is not None else None, resumed, tuple(resumed_approved), dedup_by, tuple(held),
                approval_object, tuple(implicit_decision))


def records(*steps: Step) -> list[tuple[StepRecord, StepFacts]]:
    """The steps numbered from 0 as the driver records them, each with the ledger's counts after it (every count the
    steps so far added), and the facts the column reports of each."""
    out: list[tuple[StepRecord, StepFacts]] = []
    ledger: dict[str, dict[str, Any]] = {}
    session: str | None = None
    for index, s in enumerate(steps):
        for name, key in _COUNTS:
            for cid, n in getattr(s, name).items():
                ledger.setdefault(cid, {"tool": "", "tool_entries": 0, "executor_entries": 0, "effects": 0})[key] += n
        record, facts = s.records(index, {cid: dict(c) for cid, c in sorted(ledger.items())}, session)
        session = record.session_status
        out.append((record, facts))
    return out


def run(observables: dict[str, Any], *steps: Step, requests: Sequence[str] = (), wire: list[dict[str, Any]] | None = None,
        mcp: dict[str, Any] | None = None) -> Run:
    """The ``Run`` of these steps: its facts built by ``step_facts`` from the typed records, its steps as ``observation``
    stores them (action, status, refusal, the first line of the error)."""
    pairs = records(*steps)
    built = [r for r, _ in pairs]
    stored = [stored_step(s) for s in built]
    return Run(observables, step_facts(built, [f for _, f in pairs]), stored, list(requests), wire, mcp)


def steps_of(stored: Run) -> list[Step]:
    """The steps of a stored run (a committed record's facts and steps), for a test to change and build again with
    ``rerun``: ``rerun(r, *steps_of(r)) == r`` for every committed run."""
    out: list[Step] = []
    for index, (fact, entry) in enumerate(zip(stored.facts, stored.steps, strict=True)):
        if fact["step"] != index or fact["action"] != entry["action"]:
            raise ValueError(f"fact {fact} is not of step {index} ({entry})")
        said = {k: v for k, v in fact.items() if k not in ("step", "action")}
        out.append(step(fact["action"], entry["status"], refusal=entry["refusal"], error=entry["error"], **said))
    return out


def rerun(stored: Run, *steps: Step) -> Run:
    """``stored`` with its facts and steps built from ``steps`` (its observables, model requests, wire and MCP records kept)."""
    return run(stored.observables, *steps, requests=stored.requests, wire=stored.wire, mcp=stored.mcp)
