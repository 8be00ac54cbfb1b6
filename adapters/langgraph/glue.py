"""Contract glue: the least code that keeps the contract around LangGraph's own loop.

Every line of this file is contract-only (counted as glue). LangGraph keeps running the
graph, pausing with ``interrupt()``, checkpointing and resuming; the glue adds what it
has no mechanism for, from the engine's building blocks (never its loop):

- ``ContractGate``: which high-risk calls are put to the human (only calls whose raw
  arguments pass strict validation) and how an answer is judged (``ApprovalAuthority``
  tokens bound to session, tool and arguments, single use via the idempotency store);
- ``ToolGuard``: the ``ToolNode``'s ``wrap_tool_call`` hook: strict validation of the raw
  model arguments, the engine's policy, the intent's fault point, at most three
  attempts, and the idempotency record keyed ``<session>/<tool call id>`` (replay,
  uncertain outcomes stopped for reconciliation through ``interrupt()``);
- event-id deduplication, the resume position read from the records, refusals for
  answers nobody asked for, and the step bound mapped onto LangGraph's recursion limit.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable

from langchain_core.messages import ToolMessage
from langgraph.errors import GraphBubbleUp
from langgraph.types import interrupt

from handwritten.approvals import Approval, ApprovalAuthority, Refusal
from handwritten.canonical import args_hash, sha256_hex
from handwritten.idempotency import (
    Conflict,
    Exhausted,
    InFlight,
    RecordState,
    Replayed,
    SqliteIdempotencyStore,
    Started,
    Uncertain,
)
from handwritten.policy import Decision, Policy
from handwritten.schema import ArgsValidator
from harness.world import FIXTURE_TOOLS, FixtureWorld

from .graph import tool_message
from .trace import Trace

MAX_ATTEMPTS = 3
DURABILITY = "sync"  # the checkpoint after the step that names a call (its intent) is on disk before the tool runs


def validators(names: list[str]) -> dict[str, ArgsValidator]:
    """Strict validators (no coercion, unknown fields rejected) for the scenario's tools."""
    return {n: ArgsValidator(FIXTURE_TOOLS[n].schema) for n in names}


def recursion_limit(max_steps: int) -> int:
    """The step bound on model turns as LangGraph's own bound on super-steps: a turn is ``agent`` + ``tools``."""
    return 2 * max_steps


def first_delivery(store: SqliteIdempotencyStore, session_id: str, event_id: str) -> bool:
    """False when this inbound event id was delivered before (it is then ignored, not run again)."""
    return store.claim_once(f"event/{session_id}/{event_id}")


def unexpected(action: str, call_id: str) -> str:
    """The engine's refusal for an answer to a question nobody asked."""
    return f"no uncertain call {call_id!r} to reconcile" if action == "reconcile" else Refusal.NOT_PENDING.value


def resumed_call(store: SqliteIdempotencyStore, session_id: str, open_calls: list[dict[str, Any]]) -> dict[str, Any]:
    """The call a resume continues at, as the engine's pending intent would name it: one whose record says it
    was entered and not finished, else the first call of the turn not completed, else the first unanswered
    (LangGraph's state cannot tell which ran: ToolNode saves a batch's results together)."""
    states = {c["id"]: getattr(store.get(f"{session_id}/{c['id']}"), "state", None) for c in open_calls}
    entered = [c for c in open_calls if states[c["id"]] in (RecordState.IN_PROGRESS, RecordState.UNCERTAIN)]
    not_done = [c for c in open_calls if states[c["id"]] is not RecordState.COMPLETED]
    return (entered or not_done or open_calls)[0]


def position(store: SqliteIdempotencyStore, session_id: str, call: dict[str, Any]) -> str:
    """Where a resumed run continues with ``call`` next: its record, not LangGraph's state, knows whether it ran."""
    if FIXTURE_TOOLS[call["name"]].risk.value == "read_only":
        return "before_execute"
    record = store.get(f"{session_id}/{call['id']}")
    if record is None or record.state is RecordState.FAILED:
        return "before_execute"
    return "after_execute" if record.state is RecordState.COMPLETED else "reconcile"


class ContractGate:
    """Puts only valid high-risk calls to the human; approves with a bound, single-use token."""

    def __init__(self, session_id: str, checks: dict[str, ArgsValidator], approvals: ApprovalAuthority, store: SqliteIdempotencyStore) -> None:
        self._session = session_id
        self._checks = checks
        self._approvals = approvals
        self._store = store

    def asks_about(self, call: dict[str, Any]) -> bool:
        return self._checks[call["name"]].check(call["args"]).ok

    def validated(self) -> bool:
        return True

    def decide(self, answer: dict[str, Any], undecided: list[dict[str, Any]]) -> tuple[dict[str, Any], str] | str:
        call = next((c for c in undecided if c["id"] == answer.get("call_id")), None)
        if call is None:
            return Refusal.NOT_PENDING.value
        if answer["action"] == "reject":
            return call, "reject"
        verdict = self._approvals.verify(answer["token"], self._session, call["name"], args_hash(call["args"]))
        if isinstance(verdict, Refusal):
            return verdict.value
        return (call, "approve") if self._single_use(verdict, call) else Refusal.REUSED.value

    def _single_use(self, approval: Approval, call: dict[str, Any]) -> bool:
        # The token's record is bound to the call it approved: LangGraph re-runs the approval node
        # with the same answer after a crash (same call: fine), another call is a reuse.
        key = f"approval-token/{approval.token_id}"
        match self._store.begin(key, sha256_hex(call["id"]), 1):
            case Started():
                self._store.complete(key, call["id"])
                return True
            case Replayed():
                return True
            case _:
                return False


class ToolGuard:
    """``ToolNode(wrap_tool_call=...)``: schema, policy, intent fault point, attempts and idempotency around each call."""

    def __init__(self, session_id: str, checks: dict[str, ArgsValidator], store: SqliteIdempotencyStore, world: FixtureWorld, trace: Trace) -> None:
        self._session = session_id
        self._checks = checks
        self._store = store
        self._world = world
        self._trace = trace
        self._policy = Policy()
        self._lock = threading.Lock()  # ToolNode runs a turn's calls in threads; the records share one connection

    def _records(self, method: str, *args: Any) -> Any:
        with self._lock:
            return getattr(self._store, method)(*args)

    def __call__(self, request: Any, execute: Callable[[Any], Any]) -> Any:
        with self._world.handover(request.tool_call["id"]):  # the harness's sibling order (a schedule), around the call
            return self._guard(request, execute)

    def _guard(self, request: Any, execute: Callable[[Any], Any]) -> Any:
        call = request.tool_call
        name = call["name"]
        if name not in self._checks:
            return tool_message(call, "error", {"error": f"unknown tool {name!r}"})
        checked = self._checks[name].check(call["args"])  # the model's raw arguments, before any coercion
        if not checked.ok:
            return tool_message(call, "error", {"error": "invalid arguments", "details": list(checked.errors)})
        decision = self._policy.decide(name, FIXTURE_TOOLS[name].risk)
        if decision is Decision.DENY:
            return tool_message(call, "refused", {"error": f"refused by policy: {name} is never allowed"})
        self._world.faults.fire("engine.kill_after_checkpoint", call_id=call["id"])
        if not Policy.needs_idempotency(decision):
            return self._read_only(call, request, execute)
        return self._effectful(call, request, execute, sha256_hex(checked.canonical))

    def _read_only(self, call: dict[str, Any], request: Any, execute: Callable[[Any], Any]) -> Any:
        error = ""
        for _ in range(MAX_ATTEMPTS):
            try:
                return execute(request)
            except GraphBubbleUp:
                raise
            except Exception as exc:  # a tool error is a value for the model after the last attempt
                error = f"{type(exc).__name__}: {exc}"
        return tool_message(call, "error", {"error": f"failed after {MAX_ATTEMPTS} attempts: {error}"})

    def _effectful(self, call: dict[str, Any], request: Any, execute: Callable[[Any], Any], digest: str) -> Any:
        key = f"{self._session}/{call['id']}"
        while True:
            match self._records("begin", key, digest, MAX_ATTEMPTS):
                case Replayed(result=stored):
                    return ToolMessage(stored, tool_call_id=call["id"], name=call["name"], artifact={"status": "replayed"})
                case Conflict():
                    return tool_message(call, "error", {"error": "idempotency key already used with different arguments"})
                case Exhausted(error=error):
                    return tool_message(call, "error", {"error": f"failed after {MAX_ATTEMPTS} attempts: {error}"})
                case InFlight() | Uncertain():  # its process died inside the executor, or it timed out: unknown
                    settled = self._reconcile(call, key)
                    if settled is not None:
                        return settled
                case Started():
                    try:
                        message = execute(request)
                    except GraphBubbleUp:
                        raise
                    except TimeoutError:  # entered, outcome unknown: never retried automatically
                        self._records("mark_uncertain", key)
                        settled = self._reconcile(call, key)
                        if settled is not None:
                            return settled
                        continue
                    except Exception as exc:  # failed before any effect: a retry may run under the same key
                        self._records("fail", key, f"{type(exc).__name__}: {exc}")
                        continue
                    self._records("complete", key, json.loads(message.content))
                    return message

    def _reconcile(self, call: dict[str, Any], key: str) -> ToolMessage | None:
        """Pause until a human settles the call: ``confirmed`` is its result, ``not_executed`` lets it run again."""
        answer = interrupt({"kind": "reconcile", "call_id": call["id"], "tool": call["name"]})
        outcome = answer["outcome"]
        self._records("resolve", key, outcome, {"reconciled": outcome})
        if answer.get("driver_step") == self._trace.driver_step:
            self._trace.emit({"kind": "reconciled", "call_id": call["id"], "outcome": outcome})
        return tool_message(call, "reconciled", {"reconciled": outcome}) if outcome == "confirmed" else None
