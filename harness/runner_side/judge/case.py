"""What the judge reads and says: the two runs of a case, a rule's reason and its claims, and the one builder of a
case, used alike by the comparison, ``--rederive``, the mutation check and the tests.

A ``Run`` is one column's measured run of a scenario: its observables (what the cells show) and the facts they were
computed from (the driver steps, what each step did, the roles of every model request, the scripted server's records
of a wire run). A rule reads both; it vouches for a value only through the facts (``Claim``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path as FilePath
from typing import Any

from harness.modes import compared_with
from harness.paths import inside
from harness.scenarios import SCENARIO_DIR, Scenario, load_scenario

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
    each driver step did: ``harness.runner_side.observation.step_facts``), ``requests`` (the roles of every model
    request, ``model_requests``) and ``wire`` (the scripted server's records of a wire run's requests)."""

    observables: dict[str, Any]
    facts: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    wire: list[dict[str, Any]] | None = None


@dataclass(frozen=True)
class Case:
    """What the rules read: the scenario, the engine's run, the framework's run and what the framework names."""

    scenario: Scenario
    engine: Run
    framework: Run
    mechanisms: dict[str, str] = field(default_factory=dict)  # role -> module:qualname
    constants: dict[str, dict[str, Any]] = field(default_factory=dict)  # role -> {ref, value}
    mode: str = "defaults"  # the framework's mode: in contract its glue passes the scenario's bounds

    @cached_property
    def implied(self) -> dict[str, Any]:
        """The framework's observables as its facts imply them (``judge.implied``): the values claims vouch for."""
        from harness.runner_side.judge.implied import implied

        return implied(self.scenario, self.framework)


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
    return Run(observables, record["facts"], record["steps"], record.get("model_requests", []), record.get("wire_requests"))


def case_of(scenario: Scenario, engine: dict[str, Any], record: dict[str, Any], header: dict[str, Any], mode: str) -> Case:
    """The case of one framework record against the engine's record it is compared with (``harness.modes.compared_with``);
    ``header``: the column's document or result header, whose ``mechanisms`` (role -> ``{ref}`` or ``ref``) and
    ``constants`` the rules name."""
    mechanisms = {role: m["ref"] if isinstance(m, dict) else m for role, m in header.get("mechanisms", {}).items()}
    return Case(scenario, run_of(engine), run_of(record), mechanisms, header.get("constants", {}), mode)


def engine_of(reference: dict[str, Any], mode: str, record: dict[str, Any]) -> dict[str, Any] | None:
    """The reference column's stored record a framework record of ``mode`` is compared with (``compared_with``), from
    the reference's document (``handwritten.json``); None when it has none for the record's scenario."""
    runs: dict[str, dict[str, Any]] = reference.get("modes", {}).get(compared_with(mode)[1], {}).get("scenarios", {})
    return runs.get(record.get("scenario", ""))


class StoredEvidence:
    """An evidence directory read once: its documents and the scenario files its records name, each parsed the first
    time it is asked for, and the case of any stored record."""

    def __init__(self, evidence_dir: FilePath, scenarios_dir: FilePath = SCENARIO_DIR) -> None:
        self.evidence_dir, self.scenarios_dir = evidence_dir, scenarios_dir
        self._documents: dict[str, dict[str, Any]] = {}
        self._scenarios: dict[str, Scenario] = {}

    def document(self, column: str) -> dict[str, Any]:
        """``<column>.json``, parsed once (a caller that changes a record copies what it changes)."""
        if column not in self._documents:
            self._documents[column] = json.loads(inside(self.evidence_dir, f"{column}.json").read_text(encoding="utf-8"))
        return self._documents[column]

    def scenario(self, file: str) -> Scenario:
        """The scenario file a record names, loaded once."""
        if file not in self._scenarios:
            self._scenarios[file] = load_scenario(inside(self.scenarios_dir, file))
        return self._scenarios[file]

    def engine(self, mode: str, record: dict[str, Any]) -> dict[str, Any]:
        """The engine's stored record ``record`` (of ``mode``) is compared with."""
        engine = engine_of(self.document(compared_with(mode)[0]), mode, record)
        if engine is None:
            raise KeyError(f"{compared_with(mode)[0]}.json has no {compared_with(mode)[1]} record of {record.get('scenario')!r}")
        return engine

    def case(self, column: str, mode: str, key: str, record: dict[str, Any] | None = None) -> Case:
        """The case of the stored record ``key`` of ``column`` in ``mode``, or of ``record`` in its place (a changed copy)."""
        document = self.document(column)
        record = document["modes"][mode]["scenarios"][key] if record is None else record
        return case_of(self.scenario(record["file"]), self.engine(mode, record), record, document, mode)


def case_from_record(evidence_dir: FilePath, column: str, mode: str, key: str, scenarios_dir: FilePath = SCENARIO_DIR) -> Case:
    """The case of one stored record (``key`` as it stands in ``modes.<mode>.scenarios`` of ``<column>.json``), built
    from the evidence in ``evidence_dir`` and the scenario file the record names, exactly as the comparison built it."""
    return StoredEvidence(evidence_dir, scenarios_dir).case(column, mode, key)
