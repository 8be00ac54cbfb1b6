"""The evidence documents: one per column, plus the availability of every column.

``handwritten.json`` holds, per scenario, the scenario's ``expected`` observables, the
engine's ``actual`` ones and whether they are ``equal``. Every other column's file
holds, per mode and scenario, each observable side by side with the hand-written
engine's measured value. All of them validate against ``evidence/evidence.schema.json``
and are written by the one canonical writer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator

from harness.columns import REFERENCE, ROOT
from harness.modes import compared_with
from harness.runner_side.judge import case_of, engine_of, reason_record, reasons, run_of
from harness.runner_side.judge.cells import compare_scenario, summarize
from harness.runner_side.observe.observables import expected_names
from harness.runner_side.run.glue import count_glue_lines
from harness.runner_side.run.runner import ColumnResult
from harness.scenarios import Scenario

SCHEMA_VERSION = 1
SCHEMA_PATH = ROOT / "evidence" / "evidence.schema.json"
_RECORD_EXTRAS = ("steps", "facts", "trace", "model_requests", "detail")
_WIRE_EXTRAS = ("wire_requests", "mcp_client")  # a wire run's requests, as the scripted server recorded them; what an mcp run's client did


def _network(result: ColumnResult, mode: str) -> dict[str, Any]:
    """A mode's ``network`` (what the guard let through and refused while the column played that mode, its import
    included), when the guard's log told the modes apart."""
    return {"network": result.network.by_mode[mode].to_json()} if mode in result.network.by_mode else {}


def _network_of(bodies: Iterable[dict[str, Any]], header: dict[str, Any]) -> dict[str, list[str]]:
    """The header's ``network_allowed`` and ``network_refused``: every mode's attempts (a mode without its own: the
    header's as it was)."""
    parts = [body.get("network", {"allowed": header.get("network_allowed", []), "refused": header.get("network_refused", [])}) for body in bodies]
    return {f"network_{kind}": sorted({a for part in parts for a in part[kind]}) for kind in ("allowed", "refused")}


def _header(result: ColumnResult) -> dict[str, Any]:
    header: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "framework": result.column.name,
        "status": result.status,
        "environment": result.column.environment,
        "versions": result.versions,
        "network_allowed": result.network.allowed,
        "network_refused": result.network.refused,
    }
    if result.reason:
        header["reason"] = result.reason
    if result.mechanisms:
        header["mechanisms"] = result.mechanisms
    if result.constants:
        header["constants"] = result.constants
    if result.column.environment == "isolated" and result.status == "measured":  # every binding not listed is not carried
        header["approval_fields"] = result.approval_fields
    return header


def handwritten_document(result: ColumnResult, expectations: dict[str, dict[str, Any]], files: dict[str, str]) -> dict[str, Any]:
    """Per scenario: expected (from the scenario file), actual (measured), equal, and what differs. A scenario
    without an ``expected`` block (one's own, outside the committed set) is recorded with ``equal``,
    ``expected`` null: its run is still every column's reference, but nothing checks it."""
    modes = {}
    for mode, records in result.modes.items():
        scenarios = {}
        for scenario_id, record in records.items():
            expected, actual = expectations.get(scenario_id), record["observables"]
            mismatches = [name for name in expected_names(expected) if expected[name] != actual[name]] if expected is not None else []
            scenarios[scenario_id] = {
                "file": files[scenario_id],
                "status": record["status"],
                "error": record["error"],
                "equal": None if expected is None else not mismatches and record["status"] == "ok",
                "mismatches": mismatches,
                "expected": expected,
                "actual": actual,
                **{k: record[k] for k in _RECORD_EXTRAS},
                **{k: record[k] for k in _WIRE_EXTRAS if k in record},
            }
        summary = {
            "scenarios": len(scenarios),
            "equal": sum(s["equal"] is True for s in scenarios.values()),
            "errors": sum(s["status"] != "ok" for s in scenarios.values()),
        }
        unchecked = sum(s["equal"] is None for s in scenarios.values())
        if unchecked:  # only then, so the committed evidence (every scenario checked) keeps its bytes
            summary["no_expectation"] = unchecked
        modes[mode] = {"summary": summary, "scenarios": scenarios, **_network(result, mode)}
        if result.not_applicable.get(mode):  # left out, and said so
            modes[mode]["not_applicable"] = result.not_applicable[mode]
    return {**_header(result), "modes": modes}


def column_document(result: ColumnResult, reference: ColumnResult, scenarios_by_id: dict[str, Scenario],
                    others: dict[str, ColumnResult] | None = None) -> dict[str, Any]:  # fmt: skip
    """Per mode and scenario: every observable beside the hand-written engine's measured value, each not-equal
    cell with the reasons the rule table derives from the two runs' facts. A mode compared with another engine column
    than ``reference`` (``mcp``: ``harness.modes.MCP_REFERENCE``) finds it in ``others`` (this run's results by column)."""
    header = _header(result)
    modes = {}
    for mode, records in result.modes.items():
        scenarios = {}
        engine_column, engine_mode = compared_with(mode)
        engine = reference if engine_column == reference.column.name else (others or {}).get(engine_column)
        reference_records = engine.modes.get(engine_mode, {}) if engine is not None else {}
        for key, record in records.items():  # a key is a scenario id, or <scenario>@<schedule> for a sub-case
            scenario = scenarios_by_id[record["scenario"]]
            scenarios[key] = {
                "file": scenario.file,
                "scenario": record["scenario"],
                "schedule": record["schedule"],
                "status": record["status"],
                "error": record["error"],
                **judged(scenario, reference_records.get(record["scenario"]), record, header, mode),
                **{k: record[k] for k in _RECORD_EXTRAS},
                **{k: record[k] for k in _WIRE_EXTRAS if k in record},
            }
        modes[mode] = {"summary": summarize(scenarios), "scenarios": scenarios, **_network(result, mode)}
        if result.not_applicable.get(mode):  # left out, and said so: never counted as equal
            modes[mode]["not_applicable"] = result.not_applicable[mode]
    document = {**header, "modes": modes}
    if result.column.environment == "isolated":  # third-party columns: defaults plus the least glue
        document["glue_lines"] = count_glue_lines(result.column.adapter_dir)
    return document


def judged(scenario: Scenario, engine: dict[str, Any] | None, record: dict[str, Any], header: dict[str, Any], mode: str) -> dict[str, Any]:
    """A framework record's ``columns`` (every observable beside the engine's) and ``reasons`` (what the rules derive
    from the two runs' facts), from a record as the column measured it or as the evidence stores it (``run_of``): the
    comparison and ``--rederive`` judge alike."""
    ok = engine is not None and engine["status"] == "ok" and record["status"] == "ok"
    found = reasons(case_of(scenario, engine, record, header, mode)) if ok and engine is not None else []
    reference = None if engine is None else {"status": engine["status"], "observables": run_of(engine).observables}
    mine = {"status": record["status"], "error": record["error"], "observables": run_of(record).observables}
    return {"columns": compare_scenario(reference, mine, found), "reasons": [reason_record(r) for r in dict.fromkeys(found)]}


def rederived(document: dict[str, Any], references: dict[str, dict[str, Any]], scenarios_by_id: dict[str, Scenario]) -> dict[str, Any]:
    """A stored column document with its cells, reasons and summaries judged again from the facts it stores (and the
    engine's stored runs each mode is compared with, in ``references`` by column: ``handwritten``, and
    ``handwritten_mcp`` for ``mcp``: ``harness.modes.compared_with``), no framework run: ``--rederive``."""
    modes = {}
    for mode, body in document.get("modes", {}).items():
        reference = references.get(compared_with(mode)[0], {})
        scenarios = {key: {**record, **judged(scenarios_by_id[record["scenario"]], engine_of(reference, mode, record), record, document, mode)}
                     for key, record in body["scenarios"].items()}
        modes[mode] = {**body, "summary": summarize(scenarios), "scenarios": scenarios}
    return {**document, "modes": modes}


def merge_modes(fresh: dict[str, Any], committed: dict[str, Any] | None) -> dict[str, Any]:
    """A column's document from a run of some of its modes, completed with the committed document's other modes, so a
    run of one mode never leaves the committed evidence without the other (a column not measured keeps nothing)."""
    if committed is None or fresh.get("status") != "measured":
        return fresh
    kept = {mode: body for mode, body in committed.get("modes", {}).items() if mode not in fresh["modes"]}
    if not kept:
        return fresh
    modes = dict(sorted({**kept, **fresh["modes"]}.items()))
    return {**fresh, **_network_of(modes.values(), fresh), "modes": modes}  # the guard's attempts: the union of the modes kept


def availability_document(entries: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Every column with its status and, when not measured, why."""
    return {"schema_version": SCHEMA_VERSION, "columns": dict(sorted(entries.items()))}


def availability_entry(result: ColumnResult) -> dict[str, Any]:
    entry: dict[str, Any] = {"status": result.status, "environment": result.column.environment, "modes": sorted(result.modes)}
    if result.reason:
        entry["reason"] = result.reason
    return entry


@lru_cache(maxsize=3)
def _validator(kind: str) -> Draft202012Validator:
    """The schema narrowed to one kind of document, so errors point at the field, not at ``oneOf``."""
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    narrowed = {k: v for k, v in schema.items() if k != "oneOf"} | {"$ref": f"#/$defs/{kind}"}
    return Draft202012Validator(narrowed)


def validation_errors(document: dict[str, Any]) -> list[str]:
    """Where a document breaks the published evidence schema (empty when it is valid)."""
    kind = "availability" if "columns" in document else "handwritten" if document.get("framework") == REFERENCE else "column"
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top level)'}: {e.message}" for e in _validator(kind).iter_errors(document)]
