"""The case a rule reads (the scenario, the engine's run, the framework's run, what the framework names, and the values
its facts imply) and the one builder of a case, used alike by the comparison, ``--rederive``, the mutation check and
the tests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path as FilePath
from typing import Any

from harness.modes import compared_with
from harness.paths import inside
from harness.runner_side.judge.implied import implied
from harness.runner_side.judge.said import contradictions
from harness.runner_side.judge.values import Run, run_of
from harness.scenarios import SCENARIO_DIR, Scenario, load_scenario


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
        return implied(self.scenario, self.framework)


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


def contradicted_in(evidence_dir: FilePath, scenarios_dir: FilePath, columns: list[str]) -> tuple[int, list[str]]:
    """Every stored statement of every reason of ``columns``' evidence in ``evidence_dir``, checked against the facts of
    the record it was made from: how many were checked, and each contradiction as ``<column>/<mode>/<scenario>
    <rule>: <statement>: <what the record shows>``."""
    stored, checked, found = StoredEvidence(evidence_dir, scenarios_dir), 0, []
    for column in columns:
        if not (evidence_dir / f"{column}.json").is_file():
            continue
        for mode, runs in stored.document(column).get("modes", {}).items():
            for key, record in runs.get("scenarios", {}).items():
                said = [(r["rule"], s) for r in record.get("reasons", ()) for s in r.get("says", ())]
                if not said:
                    continue
                case = stored.case(column, mode, key)
                checked += len(said)
                found += [f"{column}/{mode}/{key} {rule}: {why}" for rule, s in said for why in contradictions(case, [s])]
    return checked, found
