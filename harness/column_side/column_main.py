"""The column process: runs every scenario of one column, in every requested mode.

Started by the runner as ``python -I`` inside the column's own environment. It guards
the network first, imports the adapter once (workers fork from this process, so crash
scenarios never pay the import again), then plays each scenario in its own scratch
directory and writes the raw material of one observation per (mode, scenario) as
JSON; the runner computes the observables from it, outside this process.

One scenario's failure is that scenario's error, never the column's: an exception while building its
agent for the framework's constants, listing its schedules, playing it or reading what the column did is
recorded on that scenario (its type and message the first line of its error), and the column's other
scenarios are measured. Only what belongs to the whole column (its import, its mechanisms, ``prepare``)
ends the column process, which the runner reports as ``not-measured``.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import importlib.metadata
import platform
import socket
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

from harness.canonical_io import write_json
from harness.column_side.driver import McpAccess, exception_text, run_scenario
from harness.column_side.fixtures.faults import record_passes
from harness.column_side.network_guard import install_network_guard, set_phase
from harness.column_side.protocol import ColumnAdapter
from harness.column_side.scripted_model import summarize_log
from harness.column_side.trace.lines import LineRecorder, write_declared
from harness.column_side.trace.mechanisms import built_constants, locate, locate_approval_fields, read_constants
from harness.column_side.wire.warmup import share_default_ssl_context, warm_openai_client
from harness.errors import HarnessError
from harness.ledger import Binding, LedgerConnector
from harness.paths import inside
from harness.records import PROGRESS_PREFIX, SCENARIO_TIMEOUT_S, ScenarioRun, StepFacts, StepRecord, raw_record, run_key
from harness.scenarios import Scenario, load_scenarios

NO_BOUNDARY = "calls the tool boundary directly (direct_call, grant): this column has no boundary outside its agent's loop"
WIRE_ONLY = "meets a fault of the model's HTTP endpoint (model.http_*, model.stream_cut, model.bad_body): played in wire mode only"
MCP_ONLY = "meets a fault of the MCP server (mcp.*): played where the tools are behind an MCP server (mcp mode, the MCP columns)"


def run_raw(
    column: ColumnAdapter,
    scenario: Scenario,
    mode: str,
    scratch: Path,
    timeout_s: float = SCENARIO_TIMEOUT_S,
    schedule: str | None = None,
    ledger: Binding | None = None,
    wire: str | None = None,
    mcp: McpAccess | None = None,
) -> dict[str, Any]:
    """Run one scenario through one column; return the raw material of its observation.

    ``ledger`` is the runner's ledger (the connector, the run key); without it the driver keeps a private one. ``wire``: the
    column's base URL on the runner's scripted server, in ``wire`` mode (whose requests the runner records); ``mcp``: the
    runner's MCP server, in ``mcp`` mode (whose requests it records too)."""
    run = run_scenario(scenario, functools.partial(column.perform, mode=mode), scratch, timeout_s, schedule, ledger, wire if mode == "wire" else None,
                       mcp if mode == "mcp" else None)
    if ledger is not None:  # the column's own facts and explanations may quote counts; the runner reads its own
        for step in run.steps:
            step.ledger = ledger.connector.counts(ledger.run, step.index)
    model = summarize_log(scratch / "model_log.jsonl", len(scenario.model_script))
    clean = not any(s.error and s.raised is None for s in run.steps)  # no timeout, no unexpected death
    try:  # the column reads its own trace and rebuilds its agent here, in the column process: not the column's end
        facts = column.facts(run, mode)
        detail = column.detail(run, mode) if clean else {}
        objects = column.tool_schemas(list(scenario.tools), mode) if wire is not None and mode == "wire" else None
    except Exception as exc:
        failure = exception_text(exc, "reading what the column did raised ")
        return raw_record(run, [StepFacts() for _ in run.steps], model, {}) | {"error": failure}
    return raw_record(run, facts, model, detail) | ({"tool_objects": objects} if objects is not None else {})


def failed_record(scenario: Scenario, scratch: Path, error: str) -> dict[str, Any]:
    """The raw record of a scenario whose run could not start or finish in the column process (its schedules could
    not be listed, the supervisor failed): one step, the scenario's first, ended in ``error``."""
    step = StepRecord(0, scenario.driver[0]["action"], "error", "error", error=error)
    model = summarize_log(scratch / "model_log.jsonl", len(scenario.model_script))
    return raw_record(ScenarioRun(scenario, scratch, [step]), [StepFacts()], model, {})


def load_column(entry: str) -> ColumnAdapter:
    """Import a column's class (``module:Class``) and make the one instance its column process uses."""
    module_name, _, class_name = entry.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name or "Column", None)
    if not (isinstance(cls, type) and issubclass(cls, ColumnAdapter)):
        raise HarnessError(f"{entry} is not a ColumnAdapter class")
    return cls()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run one column over a scenario directory (started by the runner).")
    parser.add_argument("--column", required=True, help="module:Class of the column's ColumnAdapter")
    parser.add_argument("--mode", action="append", required=True)
    parser.add_argument("--scenarios", type=Path, required=True)
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--scenario-timeout", type=float, default=SCENARIO_TIMEOUT_S)
    parser.add_argument("--ledger-fd", type=int, required=True, help="the inherited descriptor of the runner's ledger connector")
    parser.add_argument("--wire", help="the column's base URL on the runner's scripted OpenAI-compatible server (wire mode); '-': read it from stdin")
    parser.add_argument("--mcp", help="'-': the runner's MCP server (mcp mode): its base URL and the column's token come on stdin")
    parser.add_argument("--mcp-kill-fd", type=int, help="the inherited descriptor on which the runner orders a worker's death (mcp mode)")
    parser.add_argument("--twice", action="store_true", help="run every scenario twice: the runner fails on any difference")
    parser.add_argument("--trace-lines", type=Path, help="with --twice: trace the second runs' lines under --trace-under into <dir>/<mode>.tsv")
    parser.add_argument("--trace-under", type=Path, help="the folder whose lines --trace-lines records (adapters/)")
    parser.add_argument("--record-passes", action="store_true", help="record the kill points every step passes (the crash sweep's plan)")
    args = parser.parse_args(argv)
    connector = LedgerConnector.from_fd(args.ledger_fd)  # before anything else could take the descriptor's number
    record_passes(args.record_passes)
    if args.wire == "-":  # the runner hands the URL (its token) over stdin, where no other process can read it
        args.wire = sys.stdin.readline().strip() or None
    mcp = _mcp_access(args.mcp, args.mcp_kill_fd)

    args.scratch.mkdir(parents=True, exist_ok=True)
    # Python's platform module asks ``uname -p`` for the processor once, then caches it. HTTP clients (openai's, in the
    # wire mode) put it in their headers: asked here, before the guard refuses every program start, it never shows
    # as a column's attempt to start a program.
    platform.processor()
    # The wire mode reaches its loopback port only, the mcp mode the MCP server's.
    ports = frozenset(p for p in (urllib.parse.urlsplit(args.wire).port if args.wire else None, urllib.parse.urlsplit(mcp.base_url).port if mcp else None) if p)
    install_network_guard(args.scratch / "network.jsonl", ports or None)
    started = time.perf_counter()
    column = load_column(args.column)
    imported = time.perf_counter()
    # The glue coverage check rides on --check's second run: its workers trace their lines, the first run's do not.
    glue = {"defaults", "contract"} <= set(column.modes)  # a column of one mode (the contract alone) has no glue to count
    recorder = LineRecorder(args.trace_under) if args.twice and args.trace_lines and args.trace_under and glue else None
    if recorder is not None:
        args.trace_lines.mkdir(parents=True, exist_ok=True)
        write_declared(str(args.trace_lines / "declared.json"), args.column)
    mechanisms = locate(column.mechanisms)  # a name the pinned version lacks fails the column here, loudly
    approval_fields = locate_approval_fields(getattr(column, "approval_fields", {}))  # only third-party columns have an approval object
    scenarios = load_scenarios(args.scenarios)
    results: dict[str, dict[str, Any]] = {}
    timings: dict[str, Any] = {"import_s": imported - started, "scenarios_s": {}}  # scenarios_s: "<mode>/<key>" -> seconds
    modes = [m for m in args.mode if m in column.modes and (m != "wire" or args.wire) and (m != "mcp" or mcp)]
    # A scenario with steps at a tool boundary needs a column that has one outside its agent's loop; one with a fault
    # of the model's HTTP endpoint, the wire mode.
    not_applicable = {mode: {s.id: why for s in scenarios if (why := _not_applicable(column, s, mode))} for mode in modes}
    playable = [s for s in scenarios if not (s.uses_boundary and not column.boundary)]
    built, build_failed = _built_constants(column, [s for s in playable if not s.uses_wire], args.scratch / "built_constants")
    constants = built_constants(read_constants(column.constants), built)
    print(f"{PROGRESS_PREFIX}plan {sum(len(playable) - len(not_applicable[m]) for m in modes)}", flush=True)  # sub-cases come on top
    for mode in modes:
        set_phase(mode)  # the guard's log tells the modes apart: a run of one mode replaces that mode's attempts alone
        column.prepare(mode)
        if mode == "wire" and args.wire:
            try:
                share_default_ssl_context()
                warm_openai_client(args.wire)
            except Exception as exc:  # only a cost: every worker then pays the client's first use itself
                print(f"the wire warm-up failed ({type(exc).__name__}: {exc}); the workers pay the client's first use", file=sys.stderr)
        mode_started = time.perf_counter()
        records: dict[str, Any] = {}
        for scenario in (s for s in playable if s.id not in not_applicable[mode]):
            # One scenario's failure is that scenario's error, never the column's: its other scenarios are measured.
            failed: str | None = build_failed.get(scenario.id)
            try:
                schedules = column.schedules(scenario, mode)
            except Exception as exc:
                schedules, failed = (), exception_text(exc, "listing the scenario's schedules raised ")
            for schedule in schedules or (None,):  # each forced ordering of a race is its own sub-case
                key = f"{scenario.id}@{schedule}" if schedule else scenario.id
                scenario_started = time.perf_counter()
                run = functools.partial(_guarded_run, column, scenario, mode, args.scenario_timeout, schedule, failed, args.wire, mcp)
                first = run_key(mode, key)
                record = run(inside(args.scratch, first, what="run key"), Binding(connector, first, 0))
                if args.twice:  # a difference between the two runs is a race nobody declared
                    again = run_key(mode, key, again=True)
                    if recorder is not None:
                        recorder.record_into(args.trace_lines / f"{mode}.tsv")
                    record["again"] = run(inside(args.scratch, again, what="run key"), Binding(connector, again, 0))
                    if recorder is not None:
                        recorder.record_into(None)
                records[key] = {**record, "scenario": scenario.id, "schedule": schedule}
                timings["scenarios_s"][f"{mode}/{key}"] = time.perf_counter() - scenario_started
                print(f"{PROGRESS_PREFIX}{mode}/{key}", flush=True)  # the runner forwards it as a progress line
        results[mode] = records
        timings[f"{mode}_s"] = time.perf_counter() - mode_started
    versions = {name: importlib.metadata.version(name) for name in column.packages}
    document = {"column": column.name, "mechanisms": mechanisms, "constants": constants, "approval_fields": approval_fields,
                "modes": results, "timings": timings, "versions": versions}
    not_applicable = {mode: dict(sorted(found.items())) for mode, found in not_applicable.items() if found}
    write_json(args.out, document | ({"not_applicable": not_applicable} if not_applicable else {}))
    return 0


def _mcp_access(given: str | None, kill_fd: int | None) -> McpAccess | None:
    """The runner's MCP server (``--mcp -``): its base URL and the column's token, on the line of stdin after the wire's
    (when both come), and the inherited kill channel."""
    if given != "-" or kill_fd is None:
        return None
    base, _, token = sys.stdin.readline().strip().partition(" ")
    return McpAccess(base, token, socket.socket(fileno=kill_fd))


def _not_applicable(column: ColumnAdapter, scenario: Scenario, mode: str) -> str | None:
    """Why the column does not play ``scenario`` in ``mode`` (None: it does). A scenario with steps at a tool boundary
    needs a column that has one outside its agent's loop; one with a fault of the model's HTTP endpoint, the wire mode;
    one with a fault of an MCP server, tools behind one (the ``mcp`` mode, or a column that meets the faults itself)."""
    if scenario.uses_boundary and not column.boundary:
        return NO_BOUNDARY
    if scenario.uses_wire and mode != "wire":
        return WIRE_ONLY
    if scenario.uses_mcp and mode != "mcp" and not column.mcp_faults:
        return MCP_ONLY
    return None


def _built_constants(column: ColumnAdapter, playable: list[Scenario], scratch: Path) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The constants no name holds, read from an agent built as defaults builds it for the first scenario it plays
    whose agent builds; and, per scenario whose agent could not be built for it, the exception (that scenario's error)."""
    failed: dict[str, str] = {}
    for scenario in playable:
        try:
            return column.built_constants(scenario, _fresh(inside(scratch, scenario.id, what="scenario id"))), failed
        except Exception as exc:
            failed[scenario.id] = exception_text(exc, "building the agent for the framework's constants raised ")
    return {}, failed


def _guarded_run(
    column: ColumnAdapter, scenario: Scenario, mode: str, timeout_s: float, schedule: str | None, failed: str | None, wire: str | None, mcp: McpAccess | None,
    scratch: Path, ledger: Binding,
) -> dict[str, Any]:
    """``run_raw``, with any exception out of it (a harness check of the supervisor's) recorded as the scenario's
    error, and ``failed`` (the scenario's agent could not be built outside its run) as its first error."""
    try:
        record = run_raw(column, scenario, mode, scratch, timeout_s, schedule, ledger, wire, mcp)
    except Exception as exc:
        return failed_record(scenario, scratch, exception_text(exc, "playing the scenario raised "))
    if failed is not None:
        record["error"] = failed + (f"\n{record['error']}" if "error" in record else "")
    return record


def _fresh(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    return directory
