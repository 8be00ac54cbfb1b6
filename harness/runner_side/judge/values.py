"""The values the judge reads and says: a column's ``Run`` of a scenario (its observables and the facts they come
from), a rule's ``Reason`` and the ``Claim``s that say which values it explains. Every module of the judge imports
these; ``case`` builds the ``Case`` a rule reads from them.

A ``Run`` is one column's measured run of a scenario: its observables (what the cells show) and the facts they were
computed from (the driver steps, what each step did, the roles of every model request, the scripted server's records
of a wire run). A rule reads both; it vouches for a value only through the facts (``Claim``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Path = tuple[str, ...]


class _Absent:
    """The value of a key that is not there (a call with no ledger entry, a turn never asked)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


@dataclass(frozen=True)
class Run:
    """One column's measured run of a scenario: ``observables`` (the observable name to its value, as the cells show
    it) and the facts they come from: ``steps`` (each driver step's action, status, refusal, error), ``facts`` (what
    each driver step did: ``harness.runner_side.observe.observation.step_facts``), ``requests`` (the roles of every model
    request, ``model_requests``), ``wire`` (the scripted server's records of a wire run's requests) and ``mcp`` (what the
    runner's MCP server saw of an ``mcp`` run's client: ``harness.runner_side.observe.mcp``)."""

    observables: dict[str, Any]
    facts: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    wire: list[dict[str, Any]] | None = None
    mcp: dict[str, Any] | None = None


@dataclass(frozen=True)
class Claim:
    """A leaf (or a whole subtree) a reason accounts for, with the value the rule's facts imply there: ``explain``
    counts a differing leaf explained only where a claim's value is the value observed. ``ABSENT`` claims that a key
    is not there."""

    path: Path
    value: Any

    def __hash__(self) -> int:  # the value may be a dict: claims hash by their path, and compare by both
        return hash(self.path)


@dataclass(frozen=True)
class Reason:
    """One rule's account of a difference: the rule's id, the sentence, the claims that say which values it explains,
    and what the sentence states about the runs' traces as data (``judge.said``: the words come from these statements,
    and ``said.contradictions`` checks them against the record)."""

    rule: str
    text: str
    claims: tuple[Claim, ...]
    says: tuple[Any, ...] = ()


def reason_record(reason: Reason) -> dict[str, Any]:
    """A reason as the evidence stores it: the rule, the text, the leaves it claims (dotted) and, where it states facts
    of a trace, those statements (``says``). The claims' values are not stored: they are the facts', which the record
    holds (``case_from_record`` rebuilds them)."""
    record = {"rule": reason.rule, "text": reason.text, "claims": [".".join(c.path) for c in reason.claims]}
    return record | ({"says": [s.record() for s in reason.says]} if reason.says else {})


def run_of(record: dict[str, Any]) -> Run:
    """The run of one record, in any of its three shapes: a column's observation record (``observables``), a stored
    column record (each cell's ``framework`` value) or a stored engine record (``actual``)."""
    if "observables" in record:
        observables = record["observables"]
    elif "columns" in record:
        observables = {name: cell["framework"] for name, cell in record["columns"].items()}
    else:
        observables = record["actual"]
    return Run(observables, record["facts"], record["steps"], record.get("model_requests", []), record.get("wire_requests"), record.get("mcp_client"))


def final_status(run: Run) -> str:
    """The run's status at the end, from its last step (the session's status after it) and what was left undecided:
    a run with a call waiting for a decision is not ``completed`` (``harness.runner_side.observe.observables.final_status``)."""
    if not run.steps:
        return "error"
    status = run.facts[-1].get("session", run.steps[-1]["status"]) if run.facts else run.steps[-1]["status"]
    return "awaiting_approval" if status == "completed" and undecided_at_end(run) else str(status)


def undecided_at_end(run: Run) -> list[str]:
    """The calls waiting for a decision at the end, from the facts (``harness.runner_side.observe.observables.undecided_calls``)."""
    waiting: set[str] = set()
    for fact in run.facts:
        if fact["action"] == "restore":
            waiting = set()
        waiting -= {r[0] for r in fact.get("results", ())} | set(fact.get("granted", ()))
        waiting |= set(fact.get("pending", ()))
    return sorted(waiting)
