"""The contract glue every third-party column builds from: framework-independent blocks on the engine's parts.

Each block is a function (or class) whose code lines count as glue of every column that uses it
(``harness/runner_side/run/glue.py``); the blocks the base column runs for every framework in ``contract`` mode
(``inbound_event``, ``verify_approval``, ``reconcile_gate``) count for every framework column.

- ``Contract``: the glue's state: session, tool registry (schemas, risk classes), idempotency records,
  the intents file and the trace.
- ``admit``: schema, then the session's user (``handwritten.tools.as_session_user``), then policy, on a call's raw
  arguments, before anything else (a pause included).
- ``run_once`` / ``run_once_async``: the intent checkpoint, then at most one execution per idempotency
  key, retries of a failure before any effect, and an uncertain outcome that stops for reconciliation.
- ``settle``: an explicit, audited reconcile of an uncertain call.
- ``whole_turn``: a turn is approved as a whole: approvals held until no call of the turn waits for the human.
- ``turns_left``: the step bound, counted from the conversation itself, so it holds across resumes.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Generator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from handwritten.approvals import Approval, ApprovalAuthority, Refusal, spent_in, token_key
from handwritten.canonical import args_hash
from handwritten.engine import RUN_UNFINISHED
from handwritten.idempotency import Conflict, Exhausted, IdempotencyStore, InFlight, RecordState, Replayed, Started
from handwritten.idempotency import Uncertain as UncertainRecord
from handwritten.policy import Decision, Policy
from handwritten.tools import ToolRegistry, as_session_user
from harness.column_side.protocol import Decision as HumanDecision

Emit = Callable[[dict[str, Any]], None]
MAX_ATTEMPTS = 3  # the contract's attempts per call, all under one idempotency key


# contract glue block: Contract
@dataclass
class Contract:
    """The glue's state: what every block reads and writes."""

    session_id: str
    registry: ToolRegistry
    idempotency: IdempotencyStore
    intents: Path  # JSON lines: the intent of each call, written (and closed) before its executor runs
    emit: Emit
    fire_after_intent: Callable[[str], None]  # the engine-only fault point between the intent and the executor
    handover: Callable[[str], AbstractContextManager[None]]  # the harness's sibling order (a schedule), around a call
    max_steps: int
    policy: Policy = field(default_factory=Policy)
    user: str | None = None  # the session's user, whom a tool that acts for a user acts for (None: such a call is refused)

    def decide(self, tool: str) -> Decision:
        return self.policy.decide(tool, self.registry.get(tool).risk)

    def key(self, call_id: str) -> str:
        return f"{self.session_id}/{call_id}"
# contract glue block end


# contract glue block: inbound_event
def inbound_event(contract: Contract, event_id: str, session_status: Callable[[], str]) -> str | None:
    """The engine's refusal of an inbound event, or None when it is applied (and recorded as seen): an id applied before
    is ``duplicate_event``; a new one while the session's run is unfinished is ``run_unfinished`` and not recorded."""
    seen, started = f"event/{contract.session_id}/{event_id}", f"run-started/{contract.session_id}"
    if contract.idempotency.get(seen) is not None:
        return "duplicate_event"
    if contract.idempotency.get(started) is not None and session_status() in ("awaiting_approval", "reconcile_required", "crashed"):
        return RUN_UNFINISHED
    contract.idempotency.claim_once(started)
    contract.idempotency.claim_once(seen)
    return None
# contract glue block end


# contract glue block: verify_approval
def verify_approval(contract: Contract, authority: ApprovalAuthority, call_id: str, tool: str, args: Any, token: str) -> str | None:
    """The engine's refusal reason for this token and pending call, or None when it approves it.
    Single use is the glue's own record, claimed before the approval reaches the framework."""
    verdict = authority.verify(token, contract.session_id, call_id, tool, args_hash(args), spent_in(contract.idempotency))
    if isinstance(verdict, Approval) and not contract.idempotency.claim_once(token_key(verdict.token_id)):
        verdict = Refusal.REUSED
    return verdict.value if isinstance(verdict, Refusal) else None
# contract glue block end


# contract glue block: reconcile_gate
def reconcile_gate(uncertain_call: str | None, call_id: str) -> str | None:
    """Why a reconcile step may not settle ``call_id`` now (no call, or another call, is uncertain), or None."""
    if uncertain_call != call_id:
        return f"no uncertain call {call_id!r} to reconcile"
    return None
# contract glue block end


# contract glue block: admit
@dataclass(frozen=True)
class Admitted:
    """The call passed schema and policy: ``needs_approval`` says whether it must wait for the human."""

    args: Any
    needs_approval: bool


@dataclass(frozen=True)
class Rejected:
    """The call's answer instead of running it: schema or policy said no (``status``: error | refused)."""

    status: str
    output: dict[str, Any]


def admit(contract: Contract, tool: str, call_id: str, raw_args: Any, announce: bool = True) -> Admitted | Rejected:
    """Schema (strict, on the raw arguments: a JSON string is parsed, never coerced), then the session's user for a
    tool that acts for one (arguments naming another user are refused, as the engine refuses them), then policy.
    ``announce=False`` checks again without tracing (a call already admitted, checked once more where its tool runs)."""
    if tool not in contract.registry:
        return Rejected("error", {"error": f"unknown tool {tool!r}"})
    try:
        args = json.loads(raw_args) if isinstance(raw_args, str) else raw_args
    except json.JSONDecodeError as exc:
        return Rejected("error", {"error": f"arguments are not JSON: {exc.msg}"})
    checked = contract.registry.validator(tool).check(args)
    if not checked.ok:
        if announce:
            contract.emit({"kind": "schema_rejected", "call_id": call_id, "errors": list(checked.errors)})
        return Rejected("error", {"error": "invalid arguments", "details": list(checked.errors)})
    args = as_session_user(contract.registry.get(tool), checked.args, contract.user)
    if args is None:
        return Rejected("refused", {"error": f"refused: {tool} acts for the session's user only"})
    decision = contract.decide(tool)
    if announce:
        contract.emit({"kind": "call_admitted", "call_id": call_id, "decision": decision.value})
    if decision is Decision.DENY:
        return Rejected("refused", {"error": f"refused by policy: {tool} is never allowed"})
    return Admitted(args, decision is Decision.NEEDS_APPROVAL)
# contract glue block end


# contract glue block: run_once
@dataclass(frozen=True)
class Ok:
    """The executor ran now and returned ``output``."""

    output: Any


@dataclass(frozen=True)
class Replay:
    """The key completed before: ``output`` is the stored result as the records keep it (canonical JSON text); nothing ran."""

    output: Any


@dataclass(frozen=True)
class Failed:
    """The call failed and will not run again on its own (attempts exhausted, or a key reused with other arguments)."""

    error: str


@dataclass(frozen=True)
class Uncertain:
    """The executor was entered and its outcome is unknown: the run stops until a reconcile settles it."""

    call_id: str


@dataclass(frozen=True)
class Reconciled:
    """A human confirmed the uncertain call ran: ``output`` stands for its result; nothing ran again."""

    output: Any


RunResult = Ok | Replay | Failed | Uncertain | Reconciled
Settle = Callable[[str], str | None]
"""Asked for the human's outcome of an uncertain call (by call id): ``confirmed`` | ``not_executed``, or
None to stop the run here (the framework then stops in its own way, and a reconcile step answers later)."""


@dataclass(frozen=True)
class _Execute:
    """What the attempt loop asks its driver to do: run the executor once."""


def _attempts(contract: Contract, tool: str, call_id: str, args: Any, settle: Settle) -> Generator[_Execute, tuple[str, Any], RunResult]:
    """The attempt loop, as a generator so that a sync and an async driver share it: it yields when the
    executor should run and is sent ``("ok", output)``, ``("timeout", None)`` or ``("error", message)``."""
    key = contract.key(call_id) if Policy.needs_idempotency(contract.decide(tool)) else None
    digest = args_hash(args)
    with open(contract.intents, "a", encoding="utf-8") as intents:  # closed (flushed) before the executor runs
        intents.write(json.dumps({"call_id": call_id, "tool": tool, "args_hash": digest, "key": key}) + "\n")
    contract.fire_after_intent(call_id)
    if key is None:  # a read has no effect to repeat: no records, failures (timeouts too) retried
        return (yield from _read_attempts())
    while True:
        match contract.idempotency.begin(key, digest, MAX_ATTEMPTS):
            case Replayed(result=stored):
                return Replay(stored)
            case Conflict():
                return Failed("idempotency key already used with different arguments")
            case Exhausted(error=error):
                return Failed(f"failed after {MAX_ATTEMPTS} attempts: {error}")
            case InFlight() | UncertainRecord():  # its process died inside the executor, or it timed out: unknown
                pass
            case Started():
                kind, value = yield _Execute()
                if kind == "ok":
                    contract.idempotency.complete(key, value)
                    return Ok(value)
                if kind == "error":  # failed before any effect: a retry may run under the same key
                    contract.idempotency.fail(key, value)
                    continue
        # entered, outcome unknown: never retried automatically, only settled by a human
        contract.idempotency.mark_uncertain(key)
        outcome = settle(call_id)
        if outcome is None:
            contract.emit({"kind": "uncertain", "call_id": call_id})
            return Uncertain(call_id)
        if (settled := _settled(contract, call_id, key, outcome)) is not None:
            return settled


def _read_attempts() -> Generator[_Execute, tuple[str, Any], RunResult]:
    error = ""
    for _ in range(MAX_ATTEMPTS):
        kind, value = yield _Execute()
        if kind == "ok":
            return Ok(value)
        error = value or "TimeoutError"
    return Failed(f"failed after {MAX_ATTEMPTS} attempts: {error}")


def run_once(contract: Contract, tool: str, call_id: str, args: Any, execute: Callable[[], Any], settle: Settle) -> RunResult:
    """Run an admitted call under the contract; ``execute`` returns its JSON output or raises."""
    attempts = _attempts(contract, tool, call_id, args, settle)
    try:
        next(attempts)
        while True:
            try:
                sent: tuple[str, Any] = ("ok", execute())
            except TimeoutError:
                sent = ("timeout", None)
            except Exception as exc:  # a tool error is a value for the model, never a crash of the run
                sent = ("error", f"{type(exc).__name__}: {exc}")
            attempts.send(sent)
    except StopIteration as done:
        result: RunResult = done.value
        return result


async def run_once_async(contract: Contract, tool: str, call_id: str, args: Any, execute: Callable[[], Awaitable[Any]], settle: Settle) -> RunResult:
    """``run_once`` for a framework that awaits its tools."""
    attempts = _attempts(contract, tool, call_id, args, settle)
    try:
        next(attempts)
        while True:
            try:
                sent: tuple[str, Any] = ("ok", await execute())
            except TimeoutError:
                sent = ("timeout", None)
            except Exception as exc:  # a tool error is a value for the model, never a crash of the run
                sent = ("error", f"{type(exc).__name__}: {exc}")
            attempts.send(sent)
    except StopIteration as done:
        result: RunResult = done.value
        return result
# contract glue block end


# contract glue block: settle
def _settled(contract: Contract, call_id: str, key: str, outcome: str) -> Reconciled | None:
    """Record a human's reconcile of an uncertain call: ``confirmed`` stands for its result without running it
    again; ``not_executed`` (None) lets it run again under the same key."""
    if outcome not in ("confirmed", "not_executed"):
        raise ValueError(f"reconcile outcome must be 'confirmed' or 'not_executed', not {outcome!r}")
    settled = {"reconciled": outcome}
    contract.idempotency.resolve(key, outcome, settled)
    contract.emit({"kind": "reconciled", "call_id": call_id, "outcome": outcome})
    return Reconciled(settled) if outcome == "confirmed" else None


def resume_position(contract: Contract, call_id: str, position: str) -> str:
    """A resume's position refined by the call's idempotency record: executed, or unknown (reconcile)."""
    record = contract.idempotency.get(contract.key(call_id))
    if record is not None and record.state is RecordState.COMPLETED:
        return "after_execute"
    if record is not None and record.state is not RecordState.FAILED:
        return "reconcile"
    return position
# contract glue block end


# contract glue block: whole_turn
def whole_turn(held: Path, waiting: Sequence[str], decisions: Sequence[HumanDecision]) -> list[HumanDecision]:
    """A turn is approved as a whole (docs/contract.md), for a framework that would run an approved call while another
    call of its turn still waits for the human: of the human's ``decisions`` on a turn whose calls ``waiting`` for the
    human (the framework's, in its order) include those whose approval is held in the file ``held``, the decisions to
    hand the framework now. A rejection goes at once (nothing runs for it); an approval is held until no call of the
    turn is left undecided, then every held approval goes, in the framework's order. ``held`` is the base column's
    ``held_decisions.json``, which a snapshot keeps with the framework's state."""
    approved = [*held_approvals(held, waiting), *(d.call_id for d in decisions if d.approve)]
    rejected = [d for d in decisions if not d.approve]
    if set(waiting) - set(approved) - {d.call_id for d in rejected}:
        held.write_text(json.dumps({"approved": sorted(set(approved))}), encoding="utf-8")
        return rejected
    held.unlink(missing_ok=True)
    return [*(HumanDecision(c, True) for c in waiting if c in approved), *rejected]


def held_approvals(held: Path, waiting: Sequence[str]) -> list[str]:
    """The calls of ``waiting`` whose approval ``whole_turn`` holds: no longer pending for the human."""
    saved = json.loads(held.read_text(encoding="utf-8")) if held.exists() else {}
    return [c for c in saved.get("approved", ()) if c in waiting]
# contract glue block end


# contract glue block: turns_left
def turns_left(contract: Contract, roles: Sequence[str]) -> int:
    """Model turns the run may still take: ``max_steps`` minus the assistant turns since the last user input.
    Counted from the conversation the framework saved, so a resume never starts the count again."""
    last_user = max((i for i, role in enumerate(roles) if role == "user"), default=-1)
    taken = sum(1 for role in roles[last_user + 1 :] if role == "assistant")
    return max(0, contract.max_steps - taken)
# contract glue block end
