"""Contract glue for ``create_agent``: the least code that keeps the contract around LangChain's own loop.

All of it is contract-only (the file name makes the evidence count it). It uses the
engine's building blocks (strict validator, policy, approval tokens, idempotency
records), never its loop: ``create_agent``'s graph still runs the model, routes tool
calls, pauses for approval (``HumanInTheLoopMiddleware``) and checkpoints.

- ``ContractMiddleware.after_model`` runs before the human-in-the-loop middleware's:
  it validates every tool call's RAW arguments strictly and applies the policy. A
  rejected or denied call gets its answer as a ``ToolMessage`` (the way the HITL
  middleware answers a rejection), so the agent's router never sends it to the tool
  node and the HITL middleware never asks about it (``unanswered`` is its ``when``).
- ``ContractMiddleware.wrap_tool_call`` wraps each tool call: it checkpoints the intent
  before the executor, runs effectful calls at most once per idempotency key
  ``<session>/<tool call id>`` (a completed key replays its stored result), retries a
  failure before any effect (3 attempts in all) and stops on an uncertain outcome with a
  LangGraph ``interrupt`` that only an explicit reconcile answer resumes.
- ``verify_approval`` and ``first_delivery`` (in ``adapters/glue_common.py``) are what the driver checks before it hands
  an approval or an inbound event to the agent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ContextManager

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.types import interrupt

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


@dataclass
class Contract:
    """What the glue uses: the tools' registry (schemas, risk classes), the records and the trace."""

    session_id: str
    registry: ToolRegistry
    idempotency: IdempotencyStore
    intents: Path  # JSON lines: the intent of each call, written before its executor
    emit: Emit
    fire_after_intent: Callable[[str], None]
    handover: Callable[[str], ContextManager[None]]  # the harness's sibling order (a schedule), around a call
    policy: Policy = field(default_factory=Policy)

    def decide(self, tool: str) -> Decision:
        return self.policy.decide(tool, self.registry.get(tool).risk)

    def key(self, call_id: str) -> str:
        return f"{self.session_id}/{call_id}"


def answer(call: dict[str, Any], status: str, output: Any, encoded: bool = False) -> ToolMessage:
    """The call's result as data; ``artifact`` carries the contract status (never sent to the model)."""
    content = output if encoded else canonical_json(output)
    return ToolMessage(content=content, tool_call_id=call["id"], name=call["name"], artifact={"status": status})


def unanswered(messages: list[Any]) -> list[dict[str, Any]]:
    """The tool calls of the last AI message that have no ToolMessage after it yet."""
    last = next((i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], AIMessage)), None)
    if last is None:
        return []
    answered = {m.tool_call_id for m in messages[last + 1 :] if isinstance(m, ToolMessage)}
    return [c for c in messages[last].tool_calls if c["id"] not in answered]


class ContractMiddleware(AgentMiddleware):
    """Schema and policy before approval; intent, idempotency, retries and reconcile around each tool."""

    def __init__(self, contract: Contract) -> None:
        super().__init__()
        self.contract = contract

    def still_open(self, request: Any) -> bool:
        """The HITL middleware's ``when``: ask only about calls that schema and policy let through."""
        return request.tool_call["id"] in {c["id"] for c in unanswered(request.state["messages"])}

    def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        c, answers = self.contract, []
        for call in unanswered(state["messages"]):
            if call["name"] not in c.registry:
                answers.append(answer(call, "error", {"error": f"unknown tool {call['name']!r}"}))
                continue
            checked = c.registry.validator(call["name"]).check(call["args"])
            if not checked.ok:
                c.emit({"kind": "schema_rejected", "call_id": call["id"], "errors": list(checked.errors)})
                answers.append(answer(call, "error", {"error": "invalid arguments", "details": list(checked.errors)}))
                continue
            decision = c.decide(call["name"])
            c.emit({"kind": "call_admitted", "call_id": call["id"], "decision": decision.value})
            if decision is Decision.DENY:
                answers.append(answer(call, "refused", {"error": f"refused by policy: {call['name']} is never allowed"}))
        return {"messages": answers} if answers else None

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        with self.contract.handover(request.tool_call["id"]):
            return self._wrap(request, handler)

    def _wrap(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        c, call = self.contract, request.tool_call
        key = c.key(call["id"]) if Policy.needs_idempotency(c.decide(call["name"])) else None
        digest = args_hash(call["args"])
        with open(c.intents, "a", encoding="utf-8") as intents:  # closed (flushed) before the executor runs
            intents.write(json.dumps({"call_id": call["id"], "tool": call["name"], "args_hash": digest, "key": key}) + "\n")
        c.fire_after_intent(call["id"])
        if key is None:
            return self._run_read_only(request, handler)
        return self._run_effectful(request, handler, key, digest)

    def _run_read_only(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """No records: a read has no effect to repeat. Failures (timeouts included) are retried."""
        error = ""
        for _ in range(MAX_ATTEMPTS):
            try:
                return handler(request)
            except Exception as exc:  # a tool error is a value for the model, never a crash of the run
                error = f"{type(exc).__name__}: {exc}"
        return answer(request.tool_call, "error", {"error": f"failed after {MAX_ATTEMPTS} attempts: {error}"})

    def _run_effectful(self, request: Any, handler: Callable[[Any], Any], key: str, digest: str) -> Any:
        """At most one execution per key; a replay returns the stored result; an unknown outcome stops the run."""
        c, call = self.contract, request.tool_call
        while True:
            match c.idempotency.begin(key, digest, MAX_ATTEMPTS):
                case Replayed(result=stored):
                    return answer(call, "replayed", stored, encoded=True)
                case Conflict():
                    return answer(call, "error", {"error": "idempotency key already used with different arguments"})
                case Exhausted(error=error):
                    return answer(call, "error", {"error": f"failed after {MAX_ATTEMPTS} attempts: {error}"})
                case InFlight() | Uncertain():  # its process died inside the executor, or it timed out: unknown
                    settled = self._reconcile(call, key)
                case Started():
                    try:
                        message = handler(request)
                    except TimeoutError:  # entered, outcome unknown: never retried automatically
                        settled = self._reconcile(call, key)
                    except Exception as exc:  # failed before any effect: a retry may run under the same key
                        c.idempotency.fail(key, f"{type(exc).__name__}: {exc}")
                        continue
                    else:
                        c.idempotency.complete(key, json.loads(message.content))
                        return message
            if settled is not None:
                return settled

    def _reconcile(self, call: dict[str, Any], key: str) -> ToolMessage | None:
        """Pause (a LangGraph interrupt) until a human settles the call, explicitly and audited:
        ``confirmed`` is the call's result without running it again; ``not_executed`` lets it run again."""
        c = self.contract
        c.idempotency.mark_uncertain(key)
        c.emit({"kind": "uncertain", "call_id": call["id"]})
        outcome = interrupt({"kind": "reconcile", "call_id": call["id"], "tool": call["name"]})["outcome"]
        if outcome not in ("confirmed", "not_executed"):
            raise ValueError(f"reconcile outcome must be 'confirmed' or 'not_executed', not {outcome!r}")
        settled = {"reconciled": outcome}
        c.idempotency.resolve(key, outcome, settled)
        c.emit({"kind": "reconciled", "call_id": call["id"], "outcome": outcome})
        return answer(call, "reconciled", settled) if outcome == "confirmed" else None
