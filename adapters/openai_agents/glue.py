"""Contract glue for ``Agent`` + ``Runner``: the least code that keeps the contract around the SDK's own loop.

All of it is contract-only (the file name makes the evidence count it). It uses the
engine's building blocks (strict validator, policy, approval tokens, idempotency
records), never its loop: ``Runner.run`` still calls the model, runs the tools, pauses
for approval (``needs_approval``) and serializes the paused run (``RunState``).

- ``Contract.needs_approval`` is each tool's ``needs_approval`` callable: the SDK asks it
  before it runs or pauses on a call, so the glue validates the RAW arguments strictly
  and applies the policy there; only a valid call of a high-risk tool pauses.
- ``Contract.guard`` wraps each ``FunctionTool.on_invoke_tool`` (the SDK hands it the
  raw JSON text of the arguments): strict validation again (the SDK's own parse is lax),
  a refusal for an always-denied tool, the intent written before the executor
  (``engine.kill_after_checkpoint`` fires right after), effectful calls at most once per
  idempotency key ``<session>/<tool call id>`` (a completed key replays its stored
  result), 3 attempts before any effect, and an uncertain outcome (a record found
  ``in_progress``, or a ``TimeoutError`` after entry) stops the run with
  ``ReconcileRequired`` until an explicit reconcile settles it.
- ``verify_approval`` and ``first_delivery`` (in ``adapters/glue_common.py``) are what the driver checks before it hands
  an approval or an inbound event to the SDK.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

from agents import FunctionTool

from handwritten.canonical import args_hash, canonical_json
from handwritten.idempotency import (
    Conflict,
    Exhausted,
    IdempotencyStore,
    InFlight,
    RecordState,
    Replayed,
    Started,
    Uncertain,
)
from handwritten.policy import Decision, Policy
from handwritten.tools import ToolRegistry

Emit = Callable[[dict[str, Any]], None]
MAX_ATTEMPTS = 3


class ReconcileRequired(Exception):
    """An effectful call's outcome is unknown: the run stops until a human reconciles it."""


@dataclass
class Contract:
    """What the glue uses: the tools' registry (schemas, risk classes), the records and the trace.

    ``settle`` is the reconcile step's decision (call id, outcome), None in every other step."""

    session_id: str
    registry: ToolRegistry
    idempotency: IdempotencyStore
    intents: Path  # JSON lines: the intent of each call, written before its executor
    emit: Emit
    fire_after_intent: Callable[[str], None]
    starting: Callable[[str], None]  # the harness's sibling order (a schedule): the start and end of a hand-over
    finished: Callable[[str], None]
    settle: tuple[str, str] | None = None
    policy: Policy = field(default_factory=Policy)
    statuses: dict[str, str] = field(default_factory=dict)  # call id -> the contract status of its last result

    def decide(self, tool: str) -> Decision:
        return self.policy.decide(tool, self.registry.get(tool).risk)

    def key(self, call_id: str) -> str:
        return f"{self.session_id}/{call_id}"

    def status_of(self, call_id: str) -> str:
        return self.statuses.get(call_id, "ok")

    def _answer(self, call_id: str, status: str, output: Any) -> str:
        self.statuses[call_id] = status
        return canonical_json(output)

    def _check(self, tool: str, call_id: str, raw: Any) -> str | None:
        """Schema then policy on the raw arguments: the rejection to answer with, or None when the call may go on."""
        try:
            args = json.loads(raw) if isinstance(raw, str) else raw
        except json.JSONDecodeError as exc:
            return self._answer(call_id, "error", {"error": f"arguments are not JSON: {exc.msg}"})
        checked = self.registry.validator(tool).check(args)
        if not checked.ok:
            self.emit({"kind": "schema_rejected", "call_id": call_id, "errors": list(checked.errors)})
            return self._answer(call_id, "error", {"error": "invalid arguments", "details": list(checked.errors)})
        if self.decide(tool) is Decision.DENY:
            return self._answer(call_id, "refused", {"error": f"refused by policy: {tool} is never allowed"})
        return None

    def needs_approval(self, tool: str) -> Callable[[Any, dict[str, Any], str], Awaitable[bool]]:
        """The SDK's ``needs_approval`` callable for ``tool``: pause only for a valid, admitted high-risk call."""

        async def check(context: Any, params: dict[str, Any], call_id: str) -> bool:
            if self._check(tool, call_id, params) is not None:
                return False  # the guarded tool answers it with the rejection, without running
            decision = self.decide(tool)
            self.emit({"kind": "call_admitted", "call_id": call_id, "decision": decision.value})
            return decision is Decision.NEEDS_APPROVAL

        return check

    def guard(self, tool: FunctionTool) -> FunctionTool:
        """Wrap the tool's invocation: validation, policy, intent, idempotency, retries, reconcile."""
        invoke = tool.on_invoke_tool

        async def guarded(ctx: Any, raw: str) -> Any:
            await asyncio.to_thread(self.starting, ctx.tool_call_id)  # the gate blocks: never on the event loop
            try:
                return await checked(ctx, raw)
            finally:
                await asyncio.to_thread(self.finished, ctx.tool_call_id)

        async def checked(ctx: Any, raw: str) -> Any:
            call_id = ctx.tool_call_id
            rejection = self._check(tool.name, call_id, raw)
            if rejection is not None:
                return rejection
            args = json.loads(raw)
            key = self.key(call_id) if Policy.needs_idempotency(self.decide(tool.name)) else None
            with open(self.intents, "a", encoding="utf-8") as intents:  # closed (flushed) before the executor runs
                intents.write(json.dumps({"call_id": call_id, "tool": tool.name, "args_hash": args_hash(args), "key": key}) + "\n")
            self.fire_after_intent(call_id)
            if key is None:
                return await self._run_read_only(call_id, lambda: invoke(ctx, raw))
            return await self._run_effectful(call_id, key, args_hash(args), lambda: invoke(ctx, raw))

        tool.on_invoke_tool = guarded
        return tool

    async def _run_read_only(self, call_id: str, run: Callable[[], Awaitable[Any]]) -> Any:
        """No records: a read has no effect to repeat. Failures (timeouts included) are retried."""
        error = ""
        for _ in range(MAX_ATTEMPTS):
            try:
                result = await run()
            except Exception as exc:  # a tool error is a value for the model, never a crash of the run
                error = f"{type(exc).__name__}: {exc}"
            else:
                self.statuses[call_id] = "ok"
                return result
        return self._answer(call_id, "error", {"error": f"failed after {MAX_ATTEMPTS} attempts: {error}"})

    async def _run_effectful(self, call_id: str, key: str, digest: str, run: Callable[[], Awaitable[Any]]) -> Any:
        """At most one execution per key; a replay returns the stored result; an unknown outcome stops the run."""
        while True:
            match self.idempotency.begin(key, digest, MAX_ATTEMPTS):
                case Replayed(result=stored):
                    self.statuses[call_id] = "replayed"
                    return stored
                case Conflict():
                    return self._answer(call_id, "error", {"error": "idempotency key already used with different arguments"})
                case Exhausted(error=error):
                    return self._answer(call_id, "error", {"error": f"failed after {MAX_ATTEMPTS} attempts: {error}"})
                case InFlight() | Uncertain():  # its process died inside the executor, or it timed out: unknown
                    settled = self._reconcile(call_id, key)
                case Started():
                    try:
                        result = await run()
                    except TimeoutError:  # entered, outcome unknown: never retried automatically
                        settled = self._reconcile(call_id, key)
                    except Exception as exc:  # failed before any effect: a retry may run under the same key
                        self.idempotency.fail(key, f"{type(exc).__name__}: {exc}")
                        continue
                    else:
                        self.idempotency.complete(key, json.loads(result))
                        self.statuses[call_id] = "ok"
                        return result
            if settled is not None:
                return settled

    def _reconcile(self, call_id: str, key: str) -> str | None:
        """Stop the run until the reconcile step settles the call, explicitly and audited:
        ``confirmed`` is the call's result without running it again; ``not_executed`` lets it run again."""
        self.idempotency.mark_uncertain(key)
        if self.settle is None or self.settle[0] != call_id:
            self.emit({"kind": "uncertain", "call_id": call_id})
            raise ReconcileRequired(call_id)
        outcome = self.settle[1]
        if outcome not in ("confirmed", "not_executed"):
            raise ValueError(f"reconcile outcome must be 'confirmed' or 'not_executed', not {outcome!r}")
        settled = {"reconciled": outcome}
        self.idempotency.resolve(key, outcome, settled)
        self.emit({"kind": "reconciled", "call_id": call_id, "outcome": outcome})
        return self._answer(call_id, "reconciled", settled) if outcome == "confirmed" else None

    def position_of(self, call_id: str, position: str) -> str:
        """A resume's position refined by the idempotency record: executed, or unknown (reconcile)."""
        record = self.idempotency.get(self.key(call_id))
        if record is not None and record.state is RecordState.COMPLETED:
            return "after_execute"
        if record is not None and record.state is not RecordState.FAILED:
            return "reconcile"
        return position
