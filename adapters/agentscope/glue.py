"""Contract glue for AgentScope 2.x: the least code that keeps the contract around the ``Agent``'s own loop.

All of it is contract-only (the file name makes the evidence count it). It uses the
engine's building blocks (strict validator, policy, approval tokens, idempotency
records), never its loop: the ``Agent`` still calls the model, parses and validates tool
input, asks through its permission system (``RequireUserConfirmEvent``), runs the
tools and keeps its ``AgentState``.

- ``ContractMiddleware.on_check_permission`` replaces each call's permission decision:
  the RAW argument JSON is validated strictly (AgentScope's own check runs after its
  type repair), then the engine's policy becomes AgentScope's DENY / ASK / ALLOW, so a
  rejected call is answered by the agent itself as a denied tool result.
- ``ContractMiddleware.on_reasoning`` saves the ``AgentState`` before and after every
  model turn (AgentScope saves nothing by itself) and stops before a model turn beyond
  ``max_steps``, which AgentScope's ``max_iters`` would spend on one more, forced,
  model call.
- ``ContractMiddleware.on_acting`` saves the state and writes the call's intent before
  the executor (``engine.kill_after_checkpoint`` fires right after), and labels the
  result with the contract status.
- ``Executor.run`` runs inside the tool function: at most one execution per idempotency
  key ``<session>/<tool call id>`` (a completed key replays its stored result), up to 3
  attempts before any effect, and an uncertain outcome (a timeout after entry, or an
  ``in_progress`` record found on resume) is marked, and ``on_acting`` raises
  ``ReconcileRequired`` when the call's response comes back, before the agent records
  any result for it (the toolkit turns every exception inside a tool into a result).
- ``verify_approval`` and ``first_delivery`` (in ``adapters/glue_common.py``) are what the driver checks before it hands
  an approval or an inbound event to the agent.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentscope.message import ToolCallState, ToolResultState
from agentscope.middleware import MiddlewareBase
from agentscope.permission import PermissionBehavior, PermissionDecision
from agentscope.tool import ToolResponse

from handwritten.canonical import args_hash, canonical_json
from handwritten.idempotency import (
    Conflict,
    Exhausted,
    IdempotencyStore,
    InFlight,
    Replayed,
    Started,
    Uncertain,
)
from handwritten.policy import Decision, Policy
from handwritten.tools import ToolRegistry

Emit = Callable[[dict[str, Any]], None]
MAX_ATTEMPTS = 3


class ReconcileRequired(Exception):
    """A call's outcome is unknown: the run stops until an explicit reconcile."""


class StepBound(Exception):
    """The scenario's ``max_steps`` model turns are spent."""


@dataclass
class Contract:
    """What the glue uses: the tools' registry (schemas, risk classes), the records, the trace and the state file."""

    session_id: str
    registry: ToolRegistry
    idempotency: IdempotencyStore
    intents: Path  # JSON lines: the intent of each call, written before its executor
    emit: Emit
    fire_after_intent: Callable[[str], None]
    max_steps: int
    policy: Policy = field(default_factory=Policy)
    statuses: dict[str, str] = field(default_factory=dict)  # call id -> contract status of its latest result

    def decide(self, tool: str) -> Decision:
        return self.policy.decide(tool, self.registry.get(tool).risk)

    def key(self, call_id: str) -> str:
        return f"{self.session_id}/{call_id}"


def _decision(behavior: PermissionBehavior, message: str) -> PermissionDecision:
    return PermissionDecision(behavior=behavior, message=message)


class ContractMiddleware(MiddlewareBase):
    """Schema and policy as the permission decision; checkpoints around model turns and tools; the step bound."""

    def __init__(self, contract: Contract, save_state: Callable[[Any], None]) -> None:
        self.contract = contract
        self.save_state = save_state  # writes an AgentState to the session's file

    async def on_check_permission(self, agent: Any, input_kwargs: dict, next_handler: Callable[..., Any]) -> PermissionDecision:
        c, call = self.contract, input_kwargs["tool_call"]
        try:
            raw = json.loads(call.input)
        except json.JSONDecodeError as exc:
            raw = exc.msg  # not an object: the validator rejects it
        checked = c.registry.validator(call.name).check(raw)
        if not checked.ok:
            c.emit({"kind": "schema_rejected", "call_id": call.id, "errors": list(checked.errors)})
            return _decision(PermissionBehavior.DENY, canonical_json({"error": "invalid arguments", "details": list(checked.errors)}))
        decision = c.decide(call.name)
        c.emit({"kind": "call_admitted", "call_id": call.id, "decision": decision.value})
        if decision is Decision.DENY:
            return _decision(PermissionBehavior.DENY, canonical_json({"error": f"refused by policy: {call.name} is never allowed"}))
        if decision is Decision.NEEDS_APPROVAL and call.state != ToolCallState.ALLOWED:
            return _decision(PermissionBehavior.ASK, f"{call.name} needs a human approval")
        return _decision(PermissionBehavior.ALLOW, "allowed by the contract's policy")

    async def on_reasoning(self, agent: Any, input_kwargs: dict, next_handler: Callable[..., AsyncGenerator]) -> AsyncGenerator:
        self.save_state(agent.state)  # every tool result of the turn is in the context now
        if agent.state.cur_iter >= self.contract.max_steps:
            raise StepBound(f"max_steps {self.contract.max_steps} reached")
        async for item in next_handler(**input_kwargs):
            yield item
        self.save_state(agent.state)  # the model's reply (its tool calls) survives a kill in the tools

    async def on_acting(self, agent: Any, input_kwargs: dict, next_handler: Callable[..., AsyncGenerator]) -> AsyncGenerator:
        c, call = self.contract, input_kwargs["tool_call"]
        key = c.key(call.id) if Policy.needs_idempotency(c.decide(call.name)) else None
        self.save_state(agent.state)  # an approval given in this step survives a kill in the executor
        with open(c.intents, "a", encoding="utf-8") as intents:  # closed (flushed) before the executor runs
            intents.write(json.dumps({"call_id": call.id, "tool": call.name, "args_hash": args_hash(json.loads(call.input)), "key": key}) + "\n")
        c.fire_after_intent(call.id)
        async for item in next_handler(**input_kwargs):
            if isinstance(item, ToolResponse):
                status = c.statuses.pop(call.id, "ok" if item.state == ToolResultState.SUCCESS else "error")
                if status == "uncertain":  # stop before the agent records any result for the call
                    raise ReconcileRequired(f"the outcome of {call.id} is unknown")
                item.metadata = {**item.metadata, "status": status}
            yield item


class Executor:
    """Runs a fixture tool's body under the contract's idempotency record (inside the tool function)."""

    def __init__(self, contract: Contract) -> None:
        self.contract = contract

    def run(self, tool: str, call_id: str, args: dict[str, Any], call: Callable[[], Any]) -> Any:
        c = self.contract
        if not Policy.needs_idempotency(c.decide(tool)):
            return self._read_only(call)
        key, digest = c.key(call_id), args_hash(args)
        while True:
            match c.idempotency.begin(key, digest, MAX_ATTEMPTS):
                case Replayed(result=stored):
                    record = c.idempotency.get(key)
                    c.statuses[call_id] = "reconciled" if record is not None and record.resolution else "replayed"
                    return json.loads(stored)
                case Conflict():
                    return {"error": "idempotency key already used with different arguments"}
                case Exhausted(error=error):
                    return {"error": f"failed after {MAX_ATTEMPTS} attempts: {error}"}
                case InFlight() | Uncertain():  # its process died inside the executor, or it timed out: unknown
                    return self._uncertain(call_id, key)
                case Started():
                    try:
                        output = call()
                    except TimeoutError:  # entered, outcome unknown: never retried automatically
                        return self._uncertain(call_id, key)
                    except Exception as exc:  # failed before any effect: a retry may run under the same key
                        c.idempotency.fail(key, f"{type(exc).__name__}: {exc}")
                        continue
                    c.idempotency.complete(key, output)
                    return output

    def _read_only(self, call: Callable[[], Any]) -> Any:
        """No records: a read has no effect to repeat. Failures (timeouts included) are retried."""
        error = ""
        for _ in range(MAX_ATTEMPTS):
            try:
                return call()
            except Exception as exc:  # a tool error is a value for the model, never a crash of the run
                error = f"{type(exc).__name__}: {exc}"
        return {"error": f"failed after {MAX_ATTEMPTS} attempts: {error}"}

    def _uncertain(self, call_id: str, key: str) -> dict[str, Any]:
        """Record the unknown outcome; ``on_acting`` stops the run when the call's response comes back."""
        self.contract.idempotency.mark_uncertain(key)
        self.contract.emit({"kind": "uncertain", "call_id": call_id})
        self.contract.statuses[call_id] = "uncertain"
        return {"error": "outcome unknown: reconcile required"}


def reconcile(contract: Contract, call_id: str, outcome: str) -> None:
    """Settle an uncertain call, explicitly and audited: ``confirmed`` replays a settled result, ``not_executed`` lets it run."""
    if outcome not in ("confirmed", "not_executed"):
        raise ValueError(f"reconcile outcome must be 'confirmed' or 'not_executed', not {outcome!r}")
    contract.idempotency.resolve(contract.key(call_id), outcome, {"reconciled": outcome})
    contract.emit({"kind": "reconciled", "call_id": call_id, "outcome": outcome})
