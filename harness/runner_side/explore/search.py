"""A corpus run as one batch through the runner, and what it found.

Every column plays the whole corpus in one column process (as the comparison runs it; never a process per example; the
engine in two, one per mode, side by side), each scenario twice, so a difference between the two runs is an undeclared
race, in every mode it has: the engine in ``contract`` and ``wire``, a third-party column in ``defaults``, ``contract``
and ``wire``, the local state graph in ``contract`` (a scenario with a fault of the model's endpoint is played in
``wire`` only). The ``wire`` runs ask the
runner's scripted OpenAI-compatible server (``harness.runner_side.run.servers.wire``), one for the batch, as the comparison
does. The findings are read from the same documents the comparison writes: an adapter error (a scenario the column
could not measure: a harness defect), an undeclared race, a cell no rule explains, and on the reference columns (the
engine in both its modes, the local state graph) every contract property (``harness.runner_side.explore.properties``)
checked against the runner's own ledger and the scripted server's records.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.columns import REFERENCE, known_columns
from harness.ledger_server import Entries
from harness.modes import MODES, REFERENCE_MODES
from harness.records import run_key
from harness.runner_side.explore.properties import DRIVER_ERROR, check_equal, check_run
from harness.runner_side.publish.evidence import column_document, handwritten_document
from harness.runner_side.run.runner import ColumnResult, merge_results, run_column
from harness.runner_side.run.servers.wire import WireServer
from harness.scenarios import Scenario, load_scenarios

PROPERTY_COLUMNS = (REFERENCE, "local_state_graph")
"""The reference columns: they run the contract themselves, so every property must hold on every scenario."""
# A column is asked every mode (``harness.modes.MODES``); its process plays those it has (the local state graph:
# ``contract`` alone).
REFERENCE_PROCESSES = tuple((mode,) for mode in REFERENCE_MODES)
"""The engine's modes, each in a process of its own, side by side: it imports nothing heavy, and its wire runs (a
loopback request per model turn, the retries' waits) are the longest job of a sweep of the reference columns. A
framework's modes share one process, which imports the framework once."""
KINDS = ("property", "adapter_error", "race", "unexplained")


@dataclass(frozen=True)
class Finding:
    """One thing a batch found on one scenario run: its kind (``KINDS``), a signature that a shrunk scenario must keep
    (the property, the exception's first words, the part that raced, the observable no rule explains) and the detail."""

    column: str
    mode: str
    key: str  # the scenario id, or <id>@<schedule> for a sub-case
    kind: str
    signature: str
    detail: str

    @property
    def scenario(self) -> str:
        return self.key.split("@", 1)[0]


@dataclass
class Batch:
    """What one batch measured: per column and mode the scenario runs, the findings, and columns not measured."""

    runs: dict[tuple[str, str], int] = field(default_factory=dict)
    unplayable: list[str] = field(default_factory=list)
    """Scenarios whose driver could not make a step in one of the engine's runs (a ``reused`` token when the engine had
    accepted none): the format asks for an accepted approval first, so nothing is compared or checked on them."""
    findings: list[Finding] = field(default_factory=list)
    not_measured: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    def of(self, column: str, mode: str, kind: str) -> list[Finding]:
        return [f for f in self.findings if (f.column, f.mode, f.kind) == (column, mode, kind)]


def run_batch(columns: list[str], corpus: Path, scratch: Path, log: Callable[[str], None] = print) -> Batch:
    """Every scenario of ``corpus`` through ``columns`` (the reference always among them), twice each."""
    started = time.perf_counter()
    registry = known_columns()
    names = list(dict.fromkeys([REFERENCE, *columns]))
    scenarios = {s.id: s for s in load_scenarios(corpus)}

    jobs = [(REFERENCE, list(modes), scratch / "-".join(modes)) for modes in REFERENCE_PROCESSES]
    jobs += [(name, list(MODES), scratch) for name in names if name != REFERENCE]

    def one(job: tuple[str, list[str], Path]) -> ColumnResult:
        name, modes, root = job
        return run_column(registry[name], modes, corpus, root, scenario_count=len(scenarios), twice=True, log=lambda m: log(f"[{name}] {m}"), wire=wire)

    # The wire mode's scripted server: the runner's, one for the batch, every column with a token of its own.
    with WireServer(list(scenarios.values())) as wire, ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        done = list(pool.map(one, jobs))
    if wire.errors:
        raise AssertionError(f"harness bug: the scripted wire server raised: {wire.errors[:3]}")
    results: dict[str, ColumnResult] = {}
    ledgers = {(name, mode): result.ledger for (name, modes, _), result in zip(jobs, done, strict=True) for mode in modes}  # the runner's, per process
    for (name, _, _), result in zip(jobs, done, strict=True):
        results[name] = merge_results(results[name], result) if name in results else result
    batch = Batch()
    reference = results[REFERENCE]
    batch.unplayable = sorted({k.split("@", 1)[0] for records in reference.modes.values() for k, r in records.items()
                               if any((s["error"] or "").startswith(DRIVER_ERROR) for s in r["steps"])})  # fmt: skip
    for name, result in results.items():
        if result.status != "measured":
            batch.not_measured[name] = result.reason or "not measured"
            continue
        races = [_race(name, race) for race in result.undeclared_races]
        batch.findings += [f for f in races if f.scenario not in batch.unplayable]
        document = (handwritten_document(result, {}, {k: s.file for k, s in scenarios.items()}) if name == REFERENCE
                    else column_document(result, reference, scenarios))  # fmt: skip
        for mode, body in document["modes"].items():
            batch.runs[(name, mode)] = sum(k.split("@", 1)[0] not in batch.unplayable for k in body["scenarios"])
            ledger = ledgers[(name, mode)] if name in PROPERTY_COLUMNS else None
            for key, record in body["scenarios"].items():
                if key.split("@", 1)[0] in batch.unplayable:
                    continue
                batch.findings += _record_findings(name, mode, key, record, result.modes[mode][key], scenarios, ledger)
    batch.seconds = time.perf_counter() - started
    return batch


def _reference_clean(cell_record: dict[str, Any]) -> bool:
    """Whether the engine's run of the scenario was clean (else its cells hold no reference to be equal to: the engine's
    own failure is its finding)."""
    return all(c["handwritten"] is not None for c in cell_record["columns"].values())


def _race(column: str, race: str) -> Finding:
    """``<column>/<mode>/<key>/<part>`` as a finding."""
    _, mode, key, part = race.split("/", 3)
    return Finding(column, mode, key, "race", part, f"two runs differ in {part}")


def _record_findings(
    column: str, mode: str, key: str, cell_record: dict[str, Any], record: dict[str, Any], scenarios: dict[str, Scenario], ledger: Entries | None
) -> list[Finding]:
    found: list[Finding] = []
    if record["status"] == "error" and column not in PROPERTY_COLUMNS:
        error = record["error"] or "error"
        found.append(Finding(column, mode, key, "adapter_error", error.split(":", 1)[0], error))
    if ledger is not None:  # a reference column: the properties, on the runner's own ledger
        scenario = scenarios[record["scenario"]]
        failures = check_run(scenario, record, ledger.entries(run_key(mode, key)))
        failures += check_equal(cell_record["columns"]) if column != REFERENCE and cell_record["status"] == "ok" and _reference_clean(cell_record) else []
        found += [Finding(column, mode, key, "property", f.property, f.detail) for f in failures]
    else:
        for name, cell in cell_record.get("columns", {}).items():
            if cell.get("unexplained"):
                found.append(Finding(column, mode, key, "unexplained", name, cell["reason"]))
    return found
