"""The supervisor: plays a scenario's driver steps, each in a fresh worker process.

A worker knows only the scenario, its step and what is on disk in the scratch
directory; the supervisor holds the human's side (approval tokens, the clock, the last
event) and measures the ledger after every step. A worker that dies with the fault exit
code is a real crash: the supervisor asserts a kill fault fired, records ``crashed``,
and the next step starts a new process that reads only files.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import multiprocessing
import os
import select
import socket
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.column_side.approver import CLOCK_START, HumanApprover
from harness.column_side.fixtures import faults
from harness.column_side.fixtures.faults import FAULT_EXIT_CODE, FAULTS_FILE, SCHEDULE_FAILED_EXIT_CODE, fired_faults, passes_after, schedule_failures
from harness.column_side.fixtures.sibling_order import earlier_kills, killed_siblings, raising_siblings
from harness.column_side.fixtures.world import arm_schedule
from harness.column_side.protocol import InboundEvent, StepOutcome, StepRequest
from harness.errors import HarnessError
from harness.ledger import Binding, bind_worker
from harness.ledger_server import LedgerServer
from harness.records import MCP_STEP_BOUND_S, SCENARIO_TIMEOUT_S, ScenarioRun, StepRecord
from harness.scenarios import BOUNDARY_ACTIONS, Scenario

BOUNDARY_FIELDS = ("tool", "arguments", "key", "session", "approval_meta", "ttl_s")

Perform = Callable[[Scenario, Path, StepRequest], StepOutcome]
"""Runs one driver step inside a worker (a column's ``perform`` with its mode bound)."""


@dataclass(frozen=True)
class McpAccess:
    """The ``mcp`` mode's way to the runner's MCP server (``harness.runner_side.run.servers.mcp``): its base URL, the column's
    bearer token, and the channel on which the runner tells the supervisor to kill a step's worker (a kill fault fired in
    a tool the server ran: the process running the tool died, and the system under test with it)."""

    base_url: str
    token: str
    kills: socket.socket


def run_scenario(
    scenario: Scenario,
    perform: Perform,
    scratch: Path,
    timeout_s: float = SCENARIO_TIMEOUT_S,
    schedule: str | None = None,
    ledger: Binding | None = None,
    wire: str | None = None,
    mcp: McpAccess | None = None,
) -> ScenarioRun:
    """Play every driver step of ``scenario`` through ``perform`` in worker processes.

    The steps share one wall-clock budget; when it runs out the worker is killed, the
    step is recorded as ``error: timeout`` and the remaining steps do not run. In ``mcp`` mode each step also has a
    bound of its own (``MCP_STEP_BOUND_S``): a step past it is stopped and recorded ``stalled``, and the next step runs.
    ``schedule`` names the ordering a column forces on a race it can pin (every request carries it).
    ``ledger`` is the runner's ledger (the column process's connector and this run's key): the steps' counts are then
    the runner's to read. Without it (a test driving a column directly) this process keeps a private
    ledger server and fills in each step's counts itself. ``wire`` (``wire`` mode) is the column's base URL on the
    runner's scripted server: each step's request carries ``<wire>/<run>/<step>/v1`` as its ``model_url``. ``mcp`` (``mcp``
    mode) is the runner's MCP server: each step's request carries ``<base>/<run>/<step>/mcp`` as its ``mcp_url``.
    """
    if ledger is None:  # a run on the same scratch directory again continues the same private ledger
        with LedgerServer(scratch.parent / f"{scratch.name}.ledger.sqlite", continued=True) as server:
            private = Binding(server.connector(), f"private/{scenario.id}", 0)  # <mode>/<key>, as the runner's run keys
            return _play(scenario, perform, scratch, timeout_s, schedule, private, lambda: server.store.counts(private.run), wire, mcp)
    return _play(scenario, perform, scratch, timeout_s, schedule, ledger, None, wire, mcp)


def _play(
    scenario: Scenario,
    perform: Perform,
    scratch: Path,
    timeout_s: float,
    schedule: str | None,
    ledger: Binding,
    measure: Callable[[], dict[str, dict[str, Any]]] | None,
    wire: str | None = None,
    mcp: McpAccess | None = None,
) -> ScenarioRun:
    """The driver loop of ``run_scenario``; ``measure`` reads the ledger after each step when this process keeps it."""
    deadline = time.monotonic() + timeout_s
    scratch.mkdir(parents=True, exist_ok=True)
    approver = HumanApprover()
    now = CLOCK_START
    last_event: InboundEvent | None = None
    steps: list[StepRecord] = []
    trace_read = 0  # bytes of the trace already attributed to earlier steps
    passed = 0  # the last kill point already attributed to an earlier step (``faults.record_passes``)
    for index, step in enumerate(scenario.driver):
        now += step.get("advance_clock_s", 0)
        action = step["action"]
        if action == "run":
            last_event = InboundEvent(step["event_id"], step.get("input", scenario.user_input))
        if action == "deliver_again" and last_event is None:
            raise HarnessError(f"{scenario.file}: deliver_again before any run")
        token, made_for = None, None
        if action in ("approve", "misuse_token"):
            misuse: str = step.get("misuse", "")  # none for an approve: it is made for the named call
            made_for = {"other_call": step.get("other_call_id"), "reused": approver.last_used_for}.get(misuse, step["call_id"])
            call = scenario.scripted_call(made_for or step["call_id"])
            args = (now, scenario.session_id, call["name"], call["arguments"])
            try:
                bound = made_for or step["call_id"]  # the call the token is made for
                token = approver.approve(*args, call_id=bound) if action == "approve" else approver.misuse(misuse, *args, call_id=bound)
            except ValueError as exc:  # e.g. nothing to reuse: the column refused or failed every earlier approval
                steps.append(StepRecord(index, action, "error", "error", error=f"driver: {exc}", ledger=measure() if measure else {}))
                continue
        request = StepRequest(
            index=index,
            action=action,
            now=now,
            schedule=schedule,
            event=last_event if action in ("run", "deliver_again") else None,
            call_id=step.get("call_id"),
            token=token,
            reason=step.get("reason", "not approved"),
            outcome=step.get("outcome"),
            name=step.get("name"),
            misuse=step.get("misuse"),
            made_for=made_for if action == "misuse_token" else None,
            boundary={k: step[k] for k in BOUNDARY_FIELDS if k in step} if action in BOUNDARY_ACTIONS else None,
            model_url=f"{wire}/{ledger.run}/{index}/v1" if wire else None,
            mcp_url=f"{mcp.base_url}/{ledger.run}/{index}/mcp" if mcp else None,
            mcp_token=mcp.token if mcp else None,
        )
        fired_before = set(fired_faults(str(scratch / FAULTS_FILE)))
        binding = dataclasses.replace(ledger, step=index)
        left = max(0.0, deadline - time.monotonic())
        bound = min(left, MCP_STEP_BOUND_S) if mcp else left  # a step of the mcp mode that gets no answer: stalled
        record, by_runner = _in_worker(perform, scenario, scratch, request, binding, bound, mcp.kills if mcp else None, stalls=bound < left)
        # The worker died with the fault exit code: a kill fault must have fired (a column may also report ``crashed`` of
        # a state it finds). A kill the runner ordered fired in its MCP server's tool (``McpAccess.kills``), not here.
        if record.killed and not by_runner:
            _assert_kill_fired(scenario, scratch, fired_before)
        if token is not None and record.status != "refused":  # a step that failed after it had still taken the token in
            approver.last_used, approver.last_used_for = token, made_for  # whatever token the column did not refuse is now a used token
        record.trace, trace_read = _trace_since(scratch, trace_read, index)
        if faults.recording_passes():
            new = passes_after(str(scratch / FAULTS_FILE), passed)
            record.passes, passed = [list(p[1:]) for p in new], new[-1][0] if new else passed
            record.fired = sorted(set(fired_faults(str(scratch / FAULTS_FILE))) - fired_before)
        record.ledger = measure() if measure else {}
        steps.append(record)
        if record.error == "timeout":
            break
    return ScenarioRun(scenario, scratch, steps)


def _in_worker(
    perform: Perform, scenario: Scenario, scratch: Path, request: StepRequest, binding: Binding, timeout_s: float, kills: socket.socket | None = None,
    stalls: bool = False,
) -> tuple[StepRecord, bool]:
    """The step's record, and whether the runner ordered its worker's death (``McpAccess.kills``). With ``stalls``
    ``timeout_s`` is the mode's step bound, not what is left of the scenario's budget: a worker still running then is
    stopped and its step recorded ``stalled`` (``MCP_STEP_BOUND_S``), and the next step runs."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    worker = context.Process(target=_worker_main, args=(sender, perform, scenario, scratch, request, binding), daemon=True)
    # Everything the column process holds (a framework's imports, its tools) moves out of the collector's reach first:
    # a worker's collections would otherwise walk all of it again on every step (measured: 6 to 9 % less CPU a column).
    gc.freeze()
    worker.start()
    sender.close()
    index, action = request.index, request.action
    deadline = time.monotonic() + timeout_s
    try:
        answered = _answered(receiver, worker, deadline, kills)
        if answered == "kill":  # the runner's MCP server ran a tool whose kill fault fired: this worker dies with it
            worker.kill()
            worker.join()
            _acknowledge_kill(kills, binding)
            return StepRecord(index, action, "crashed", "crashed", killed=True), True
        if not answered:
            worker.kill()
            worker.join()
            if stalls:
                return StepRecord(index, action, "stalled", "stalled"), False
            return StepRecord(index, action, "error", "error", error="timeout"), False
        try:
            kind, payload = receiver.recv() if receiver.poll() else ("died", {})  # ended without a word
        except EOFError:
            kind, payload = "died", None
    finally:
        receiver.close()
    _ended(worker, deadline)
    if kind == "ok":
        if not isinstance(payload, StepOutcome):
            return StepRecord(index, action, "error", "error", error=f"the column returned {type(payload).__name__}, not a StepOutcome"), False
        pending = [p.to_json() for p in payload.pending]
        return StepRecord(index, action, payload.status, payload.session_status, refusal=payload.refusal, pending=pending), False
    if kind == "died" and worker.exitcode == FAULT_EXIT_CODE:
        return StepRecord(index, action, "crashed", "crashed", killed=True), False
    if kind == "died" and worker.exitcode == SCHEDULE_FAILED_EXIT_CODE:
        why = "; ".join(schedule_failures(str(scratch / FAULTS_FILE))) or "no reason recorded"
        return StepRecord(index, action, "error", "error", error=f"schedule {request.schedule} not forced: {why}"), False
    if kind == "raised":
        return StepRecord(index, action, "error", "error", error=payload["error"], raised=payload["type"], raised_bases=payload["bases"]), False
    return StepRecord(index, action, "error", "error", error=f"worker died with exit code {worker.exitcode}"), False


_SLICE_S = 0.05


def _answered(receiver: Any, worker: Any, deadline: float, kills: socket.socket | None = None) -> bool | str:
    """Wait until the worker answered or ended (False: the deadline came first; ``"kill"``: the runner asked on ``kills``
    for the worker's death). Its end is read from its exit status, not only from its end of the pipe: a process it
    started that left its group (a framework's daemon, a hostile column's) may hold that end open long after the worker
    is gone."""
    while time.monotonic() < deadline:
        if receiver.poll(min(_SLICE_S, max(0.0, deadline - time.monotonic()))) or worker.exitcode is not None:
            return True
        if kills is not None and select.select([kills], [], [], 0)[0]:
            return "kill"
    return False


def _acknowledge_kill(kills: socket.socket | None, binding: Binding) -> None:
    """Read the runner's kill order (it must name this run and step) and tell the runner the worker is dead."""
    assert kills is not None
    order = json.loads(kills.recv(1 << 12).decode().strip().splitlines()[0])
    if order != {"kill": binding.run, "step": binding.step}:
        raise HarnessError(f"the runner ordered the kill of {order}, not of this worker ({binding.run} step {binding.step})")
    kills.sendall(b"killed\n")


def _ended(worker: Any, deadline: float) -> None:
    """Reap the worker once it has answered: at once in the usual case (its sentinel closes), else by its exit status
    (a process it left holds the sentinel), until the deadline."""
    worker.join(_SLICE_S)
    while worker.exitcode is None and time.monotonic() < deadline:
        time.sleep(0.005)


def _worker_main(sender: Any, perform: Perform, scenario: Scenario, scratch: Path, request: StepRequest, binding: Binding) -> None:
    bind_worker(binding)  # the fixture tools of this step append to the runner's ledger, tagged with the step
    arm_schedule(killed_siblings(scenario), request.schedule, raising_siblings(scenario), earlier_kills(scenario))  # the orders to force, if any
    try:
        outcome = perform(scenario, scratch, request)
    except BaseException as exc:  # reported to the supervisor: the runner decides whether it is a measured outcome
        bases = [_type_name(base) for base in type(exc).__mro__[1:] if issubclass(base, BaseException)]
        sender.send(("raised", {"type": exception_type(exc), "bases": bases, "error": exception_text(exc)}))
        sender.close()
        os._exit(1)
    sender.send(("ok", outcome))
    sender.close()


def exception_type(exc: BaseException) -> str:
    """The exception's type as a ``MAPPING.md`` declares it: ``module.Name``, builtins bare."""
    return _type_name(type(exc))


def _type_name(kind: type) -> str:
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def exception_text(exc: BaseException, stage: str = "") -> str:
    """How an exception is recorded on a step: its type and message on the first line (the line evidence quotes,
    after ``stage``: where the column process was when it raised, if not in a step), the traceback below it."""
    return f"{stage}{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}"


def _assert_kill_fired(scenario: Scenario, scratch: Path, before: set[int]) -> None:
    new = set(fired_faults(str(scratch / FAULTS_FILE))) - before
    if not any(scenario.faults[i].action == "kill" for i in new):
        raise HarnessError(f"{scenario.file}: a worker exited with the fault code but no kill fault fired")


def trace_path(scratch: Path) -> Path:
    return scratch / "trace.jsonl"


def _trace_since(scratch: Path, offset: int, index: int) -> tuple[list[dict[str, Any]], int]:
    """The events the step appended to the trace after ``offset``, and where the trace ends now."""
    path = trace_path(scratch)
    if not path.exists():
        return [], offset
    with open(path, "rb") as trace:
        trace.seek(offset)
        added = trace.read()
    lines = [json.loads(line) for line in added.decode("utf-8").splitlines() if line]
    return [{k: v for k, v in e.items() if k != "driver_step"} for e in lines if e["driver_step"] == index], offset + len(added)
