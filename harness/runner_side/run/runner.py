"""The runner: starts sandboxed column processes (one per column, or two: ``processes``) and gathers their observations.

Project columns run on this interpreter; isolated columns on the interpreter of their
own virtual environment, built from their hashed lock and cached. Whatever goes wrong
(an environment that cannot be built, an adapter that crashes, a column that hangs) the
column is ``not-measured`` with the reason: never silently equal.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.columns import ROOT, Column, measured_exceptions
from harness.errors import HarnessError
from harness.ledger_server import Entries, LedgerServer
from harness.modes import over_mcp
from harness.records import SCENARIO_TIMEOUT_S, missing_roles, run_key
from harness.runner_side.observe.observation import observation
from harness.runner_side.run.glue_coverage import Coverage, coverage_of_traces, ended_in_error, sources
from harness.runner_side.run.processes import Finished, run_watched, stopping
from harness.runner_side.run.sandbox import NetworkAttempts, clean_environment, network_attempts
from harness.runner_side.run.servers.mcp import McpHost
from harness.runner_side.run.servers.wire import WireServer
from harness.runner_side.run.users import CannotReach, ColumnUser, claim_user, preflight, private_dir, read_column_file, separation_applies, traversable
from harness.scenarios import Scenario, load_scenarios, scenario_files
from harness.script_log import summarize_entries

# -I ignores PYTHONPATH and the user site; the bootstrap puts the repository first on sys.path.
BOOTSTRAP = (
    "import sys; sys.path[:0] = sys.argv[1].split(':'); "
    "from harness.column_side.column_main import main; sys.exit(main(sys.argv[2:]))"
)
START_MARGIN_S = 120.0
PACKAGES = ("harness", "handwritten", "adapters")  # what a column process imports from the repository


@dataclass
class ColumnResult:
    """What one column process left: its observation records by mode and scenario, or why there are none."""

    column: Column
    status: str  # measured | not-measured
    reason: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    modes: dict[str, dict[str, Any]] = field(default_factory=dict)
    network: NetworkAttempts = field(default_factory=NetworkAttempts)
    """What the column's network guard let through and refused (``harness.runner_side.run.sandbox``)."""
    timings: dict[str, Any] = field(default_factory=dict)
    """Seconds: ``import_s``, ``<mode>_s``, ``total_s``, ``scenarios_s`` (``<mode>/<key>`` -> seconds), and when the run
    started and ended the column (``started_at_s``, ``finished_at_s``); machine- and load-dependent, never evidence."""
    mechanisms: dict[str, dict[str, Any]] = field(default_factory=dict)
    """role -> where the framework keeps it (``harness.column_side.trace.mechanisms``), read in the column's environment."""
    approval_fields: dict[str, dict[str, Any]] = field(default_factory=dict)
    """binding -> the approval object's class and field that carry it (``harness.column_side.trace.mechanisms.locate_approval_fields``)."""
    constants: dict[str, dict[str, Any]] = field(default_factory=dict)
    """role -> a framework constant (``ref``, ``value``) read in the column's environment (a step limit, a retry count)."""
    undeclared_races: list[str] = field(default_factory=list)
    """``<column>/<mode>/<scenario>/<part>`` for every part of a record that differed between two runs."""
    not_applicable: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per mode, the scenarios the column does not play there, with why (a tool boundary it does not have, a fault of
    the model's HTTP endpoint outside the wire mode)."""
    glue_coverage: Coverage | None = None
    """With ``trace_glue``: the glue count against the lines the second runs played (``harness.runner_side.run.glue_coverage``)."""
    glue_coverage_problem: str | None = None
    """Why the glue coverage could not be computed (a source file changed under the run)."""
    ledger: Entries | None = None
    """Every entry the column's processes appended, as the runner counted them in its memory (an explorer checks the
    contract's properties against them); never evidence."""


def merge_results(first: ColumnResult, second: ColumnResult) -> ColumnResult:
    """One column's result from two processes, each of some of its modes (a process not measured: the column is not).
    What both processes read in the column's environment (versions, mechanisms, constants) is the first's; the
    timings are both processes' (``total_s`` the longer; the import paid in each, summed)."""
    if first.status != "measured" or second.status != "measured":
        return first if first.status != "measured" else second
    a, b = first.timings, second.timings
    timings = {**a, **b, "scenarios_s": {**a.get("scenarios_s", {}), **b.get("scenarios_s", {})},
               "import_s": a.get("import_s", 0.0) + b.get("import_s", 0.0), "total_s": max(a.get("total_s", 0.0), b.get("total_s", 0.0))}
    return dataclasses.replace(first, modes={**first.modes, **second.modes}, network=first.network.merged(second.network), timings=timings,
                               undeclared_races=[*first.undeclared_races, *second.undeclared_races],
                               not_applicable={**first.not_applicable, **second.not_applicable},
                               glue_coverage=first.glue_coverage or second.glue_coverage,
                               glue_coverage_problem=first.glue_coverage_problem or second.glue_coverage_problem)  # fmt: skip


def processes(column: Column, modes: list[str]) -> list[list[str]]:
    """The modes each process of a column plays: a third-party column's ``wire`` mode in a process of its own beside
    the others (its runs wait on the loopback server's delays and retries, which would otherwise lengthen the
    column's one sequence of runs: the longest of them ends the whole comparison); everything else in one process,
    which imports the framework once. The ``mcp`` mode likewise (its runs wait on the runner's MCP server, a slow
    answer among them)."""
    apart: list[str] = [m for m in ("wire", "mcp") if m in modes] if column.environment == "isolated" else []
    rest = [m for m in modes if m not in apart]
    parts: list[list[str]] = [rest, *[[m] for m in apart]]
    return [part for part in parts if part]


def run_column(column: Column, modes: list[str], scenarios_dir: Path, scratch_root: Path, **options: Any) -> ColumnResult:
    """``measure_column``, with what a column can make go wrong in the runner made that column's ``not-measured`` with
    the reason (printed loudly, never counted as equal): the runner's own resources failing while it serves the column
    (``OSError``), an observations document of the right type but not of the right shape (the column process writes
    it: ``KeyError``, ``TypeError``, ``ValueError``), processes of its user that would not end (``HarnessError``,
    ``SubprocessError``). What one column did never ends the other columns' measurement."""
    try:
        return measure_column(column, modes, scenarios_dir, scratch_root, **options)
    except (OSError, KeyError, TypeError, ValueError, AttributeError, HarnessError, subprocess.SubprocessError) as exc:
        return ColumnResult(column, "not-measured", reason=f"the runner could not measure the column: {type(exc).__name__}: {exc}")


def measure_column(
    column: Column,
    modes: list[str],
    scenarios_dir: Path,
    scratch_root: Path,
    *,
    scenario_count: int,
    extra_sys_path: Sequence[Path] = (),
    twice: bool = False,
    trace_glue: bool = False,
    scenario_timeout_s: float = SCENARIO_TIMEOUT_S,
    log: Callable[[str], None] = print,
    on_progress: Callable[[str], None] = lambda _: None,
    wire: WireServer | None = None,
    record_passes: bool = False,
) -> ColumnResult:
    """Run every scenario of ``column`` in ``modes`` in one sandboxed process.

    The column's fixture tools append to a ledger this process keeps (``LedgerServer``); the
    counts of every driver step are read from it here, never from the column. With ``twice``
    every scenario runs twice and any difference between the two runs is an undeclared race; with ``trace_glue`` too,
    the second runs of a column that has both modes are line-traced and checked against its glue count (a column that
    runs the contract alone traces nothing), so CI plays every scenario of the column twice in all, not three times.
    ``on_progress`` gets the column process's plan (``plan <n>``), then ``<mode>/<scenario>`` as each scenario finishes.
    ``wire`` is the runner's scripted OpenAI-compatible server, for the ``wire`` mode: the column process gets a base URL
    of its own on it, and every wire run's record gets the requests the server recorded for it (``harness.runner_side.run.servers.wire``).
    With ``record_passes`` every record gets ``passes``: ``[driver step, point, call id, turn, save]`` for each kill point its
    steps passed, in order (``harness.column_side.fixtures.faults.record_passes``: the crash sweep's transitions), and
    ``fired``: ``[driver step, fault index]`` for each fault that fired.
    """
    scratch = scratch_root / column.name
    scratch.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    versions: dict[str, str] = {}
    python = Path(sys.executable)
    if column.environment == "isolated":
        from harness.runner_side.run.environments import column_environment  # only isolated columns need uv

        try:
            env = column_environment(column, log=log)
        except HarnessError as exc:
            return ColumnResult(column, "not-measured", reason=f"environment could not be built: {exc}")
        python, versions = env.python, dict(env.versions)
    user, scenarios_dir, problem = _separate(scratch, scenarios_dir, python, extra_sys_path)
    if problem is not None:
        return ColumnResult(column, "not-measured", reason=problem, versions=versions)
    out = scratch / "observations.json"
    # Sub-cases (schedules) and a second run only multiply the work: the budget allows four runs per scenario.
    budget = START_MARGIN_S + scenario_timeout_s * scenario_count * len(modes) * 2 * (2 if twice else 1)
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    traces = scratch / "traces" if twice and trace_glue and {"defaults", "contract"} <= set(modes) else None
    tracing = ["--trace-lines", str(traces), "--trace-under", str(column.adapter_dir.resolve().parent)] if traces else []
    sources_before = sources(column.adapter_dir) if traces else {}
    host_dir = scratch_root / f"{column.name}.mcp-{'-'.join(modes)}"  # the runner's: never under the column's scratch directory
    with LedgerServer(scratch_root / f"{column.name}.ledger.sqlite") as ledger, _mcp_host("mcp" in modes, scenarios_dir, host_dir, ledger) as mcp:
        command = [
            str(python), "-I", "-c", BOOTSTRAP, ":".join(str(p) for p in [ROOT, *extra_sys_path]),
            "--column", column.entry, "--scenarios", str(scenarios_dir.resolve()), "--scratch", str(scratch), "--out", str(out),
            "--scenario-timeout", str(scenario_timeout_s), "--ledger-fd", str(ledger.column_fd),
            *(["--wire", "-"] if wire is not None and "wire" in modes else []),  # its base URL comes on stdin: never on a command line
            *(["--mcp", "-", "--mcp-kill-fd", str(mcp.column_fd)] if mcp is not None else []),  # so do the MCP server's URL and token
            *[a for m in modes for a in ("--mode", m)],
            *(["--twice"] if twice else []), *tracing, *(["--record-passes"] if record_passes else []),
        ]  # fmt: skip
        secret = wire.base_url(column.name) + "\n" if wire is not None and "wire" in modes else ""
        secret += f"{mcp.base_url} {mcp.token}\n" if mcp is not None else ""
        done = run_watched(command, env=clean_environment(home), cwd=scratch, timeout_s=budget, on_progress=on_progress, stdin_text=secret,
                           pass_fds=(ledger.column_fd, *([mcp.column_fd] if mcp is not None else [])), user=user)
        if stopping():
            return ColumnResult(column, "not-measured", reason="stopped by a signal", versions=versions)
        if done.timed_out:
            return ColumnResult(column, "not-measured", reason=f"the column process did not finish within {budget:.0f} s", versions=versions)
        document, why = _document(out, done) if mcp is None or not mcp.errors else (None, f"the runner's MCP server failed: {mcp.errors[0]}")
        if document is None:
            return ColumnResult(column, "not-measured", reason=why, versions=versions)
        scenarios = {s.id: s for s in load_scenarios(scenarios_dir)}
        modes_out: dict[str, dict[str, Any]] = {}
        races: list[str] = []
        traced_errors: dict[str, list[str]] = {}
        for mode, raws in document["modes"].items():
            modes_out[mode] = {}
            raised = measured_exceptions(column, mode)
            for key, raw in raws.items():
                scenario, schedule = scenarios[raw["scenario"]], raw["schedule"]
                heard, tools_over_mcp = _heard(mode, wire, mcp, column.name, scenario), over_mcp(column.name, mode)
                record = _observed(scenario, schedule, heard(_with_ledger(raw, ledger.store, run_key(mode, key)), run_key(mode, key)), raised, tools_over_mcp,
                                   record_passes)  # fmt: skip
                if "again" in raw:
                    again_key = run_key(mode, key, again=True)
                    again = _observed(scenario, schedule, heard(_with_ledger(raw["again"], ledger.store, again_key), again_key), raised, tools_over_mcp,
                                      record_passes)  # fmt: skip
                    races += [f"{column.name}/{mode}/{key}/{part}" for part in _differing_parts(record, again)]
                    if ended_in_error(raw["again"]):
                        traced_errors.setdefault(mode, []).append(key)
                modes_out[mode][key] = record
    timings = {**document["timings"], "total_s": time.perf_counter() - started}
    versions = versions or dict(sorted(document.get("versions", {}).items()))  # a project column's own packages
    network = network_attempts(scratch / "network.jsonl", modes)
    mechanisms = document["mechanisms"]
    if column.environment == "isolated" and (missing := missing_roles({r: m["ref"] for r, m in mechanisms.items()})):
        return ColumnResult(column, "not-measured", reason=f"the column names no mechanism for {', '.join(missing)}", versions=versions)
    traced = traces is not None and (traces / "declared.json").exists()  # a column of one mode has no glue to trace
    coverage, problem = _glue_coverage(column, traces, sources_before, traced_errors) if traces and traced else (None, None)
    return ColumnResult(
        column, "measured", versions=versions, modes=modes_out, network=network, timings=timings, mechanisms=mechanisms,
        approval_fields=document.get("approval_fields", {}), constants=document["constants"], undeclared_races=races,
        not_applicable=document.get("not_applicable", {}), glue_coverage=coverage, glue_coverage_problem=problem, ledger=ledger.store,
    )


def _document(out: Path, done: Finished) -> tuple[dict[str, Any] | None, str]:
    """The column process's observations document, or why there is none: it failed, or it left something that is not
    one (read without following a link it planted, never blocking on a FIFO: ``users.read_column_file``)."""
    if done.returncode != 0 or not out.exists():
        return None, f"the column process exited with {done.returncode}: {' | '.join(done.tail[-3:])}"
    try:
        document = json.loads(read_column_file(out))
        if not isinstance(document, dict):
            raise ValueError(f"a JSON {type(document).__name__}, not an object")
    except (HarnessError, OSError, ValueError) as exc:
        return None, f"the column process left no readable observations: {exc}"
    return document, ""


_users: dict[str, ColumnUser] = {}
_users_lock = threading.Lock()


def column_user(key: str) -> ColumnUser:
    """The column user of one column process of this runner (``key``: its scratch directory), distinct from every
    other one this runner, or any other runner on the machine, started (``users.claim_user``)."""
    with _users_lock:
        if key not in _users:
            _users[key] = claim_user()
        return _users[key]


def check_separation() -> None:
    """As root, that a column user can run this interpreter and read the repository, else ``CannotReach`` with one line
    saying what it cannot reach and what to do (a clone under a private home), for a CLI to print before any column
    starts (exit 2). Nothing to check when the runner is not root (no separation)."""
    if separation_applies() and (problem := preflight(column_user("pre-flight"), Path(sys.executable), readable=[ROOT / d for d in PACKAGES])):
        raise CannotReach(problem)


def _separate(scratch: Path, scenarios_dir: Path, python: Path, extra_sys_path: Sequence[Path]) -> tuple[ColumnUser | None, Path, str | None]:
    """As root, the column user of the process about to start in ``scratch`` (else None, and nothing changes). Its
    scratch directory becomes its own (``0700``, with its ``home``) and reachable (the traverse bit, never read, on the
    directories above it that lack it: a test's or a user's temporary directory); it gets a copy of the scenarios it may
    read (the user's directory may be private); and a pre-flight checks it can run ``python`` and read the repository.
    Returns the user, the scenarios directory the column should read, and the pre-flight's one line (None: none)."""
    if not separation_applies():
        return None, scenarios_dir, None
    user = column_user(str(scratch.resolve()))
    for parent in reversed(scratch.resolve().parents):
        if not parent.stat().st_mode & stat.S_IXOTH:
            os.chmod(parent, parent.stat().st_mode | stat.S_IXOTH)
    traversable(scratch.parent)  # passable, not listable: a column learns no sibling's name from it
    private_dir(scratch, user)
    private_dir(scratch / "home", user)
    copied = Path(tempfile.mkdtemp(prefix=f"{scratch.name}.scenarios-", dir=scratch.parent))
    os.chmod(copied, 0o755)  # scenario files are the column's to read, like the repository
    for source in scenario_files(scenarios_dir):
        shutil.copyfile(source, copied / source.name)
        os.chmod(copied / source.name, 0o644)
    return user, copied, preflight(user, python, readable=[*(ROOT / d for d in PACKAGES), *extra_sys_path, copied], writable=[scratch])


def _glue_coverage(column: Column, traces: Path, before: dict[Path, bytes], errors: dict[str, list[str]]) -> tuple[Coverage | None, str | None]:
    """The glue coverage of the traced second runs, or why it cannot be had (a file it reads changed under the run)."""
    after = sources(column.adapter_dir)
    changed = sorted(str(p) for p in set(before) | set(after) if before.get(p) != after.get(p))
    if changed:
        return None, f"changed while the column was traced (run the check again): {', '.join(changed)}"
    try:
        return coverage_of_traces(column, traces, errors), None
    except (HarnessError, OSError, ValueError) as exc:  # the column wrote its traces itself: what it left may be anything
        return None, f"the column's line traces could not be read: {exc}"


def _with_ledger(raw: dict[str, Any], store: Entries, run: str) -> dict[str, Any]:
    """The column's raw record with each driver step's ledger counts and the effects it committed, read from the runner's
    own ledger."""
    steps = [{**step, "ledger": store.counts(run, step["index"]), "effects_committed": store.effects_at(run, step["index"])} for step in raw["steps"]]
    return {**raw, "steps": steps}


def heard_on_wire(wire: WireServer, column: str, scenario: Scenario, raw: dict[str, Any], run: str) -> dict[str, Any]:
    """A wire run's raw record with the requests the scripted server recorded for it: what the model was sent is the
    server's log there (the in-process scripted model never ran)."""
    requests = wire.requests(column, run)
    return {**raw, "wire": requests, "model": summarize_entries([r["log"] for r in requests], len(scenario.model_script))}


def _heard(mode: str, wire: WireServer | None, mcp: McpHost | None, column: str, scenario: Scenario) -> Callable[[dict[str, Any], str], dict[str, Any]]:
    """What adds a run's records from the runner's servers to its raw record: the wire server's, the MCP server's, or none."""
    if mode == "wire" and wire is not None:
        return functools.partial(heard_on_wire, wire, column, scenario)
    if mode == "mcp" and mcp is not None:
        return functools.partial(heard_over_mcp, mcp)
    return _as_it_is


def heard_over_mcp(host: McpHost, raw: dict[str, Any], run: str) -> dict[str, Any]:
    """An mcp run's raw record with what the runner's MCP server recorded for it: every request the column's client sent
    and how it was answered, and the human's side the server applied."""
    return {**raw, "mcp": host.requests(run)}


@contextlib.contextmanager
def _mcp_host(wanted: bool, scenarios_dir: Path, state_dir: Path, ledger: LedgerServer) -> Iterator[McpHost | None]:
    """The runner's MCP server for a column process that plays the ``mcp`` mode (else None)."""
    if not wanted:
        yield None
        return
    with McpHost(scenarios_dir, state_dir, ledger) as host:
        yield host


def _as_it_is(raw: dict[str, Any], run: str) -> dict[str, Any]:
    return raw


def _observed(scenario: Scenario, schedule: str | None, raw: dict[str, Any], raised: frozenset[str], mcp: bool, passes: bool = False) -> dict[str, Any]:
    """The observation record, with the sub-case's base scenario and schedule (``mcp``: the run's tools are over MCP);
    with ``passes``, the kill points its steps passed (``[step, point, call id, turn, save]``) and the faults that fired
    (``[step, fault index]``)."""
    passed = {"passes": [[step["index"], *p] for step in raw["steps"] for p in step.get("passes", [])],
              "fired": [[step["index"], i] for step in raw["steps"] for i in step.get("fired", [])]} if passes else {}  # fmt: skip
    return {**observation(scenario, raw, raised, mcp), "scenario": scenario.id, "schedule": schedule, **passed}


def _differing_parts(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
    """The observables (and other recorded parts) on which two runs of one scenario disagree."""
    parts = [f"observables.{name}" for name in first["observables"] if first["observables"][name] != second["observables"].get(name)]
    return parts + [k for k in sorted(first) if k != "observables" and first[k] != second.get(k)]
