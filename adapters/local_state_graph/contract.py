"""The safety contract as a state graph: one node per stage, routers between them.

    accept -> model -> validate -> policy -> [approval] -> intent -> execute -> ... -> close_turn -> model

Every tool call passes schema (``validate``), then policy (``policy``), then its intent
is checkpointed (``intent``: the runtime saves a checkpoint after every super-step)
before ``execute`` enters the executor. A high-risk call pauses the whole turn in
``approval`` (an interrupt) until every high-risk call of the turn is decided; an
uncertain outcome pauses in ``reconcile`` (an interrupt) until a human settles it.
The nodes use the engine's building blocks (strict validator, policy, approval tokens,
idempotency records) but not its loop: the graph is the loop.

The graph's values are plain JSON (they are checkpointed as they are); what the nodes
need from outside (model, tools, records, trace) comes in ``Services``, passed to each
call and never checkpointed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from handwritten import events as ev
from handwritten.approvals import Approval, ApprovalAuthority, Refusal, spent_in, token_key
from handwritten.canonical import canonical_json, sha256_hex
from handwritten.idempotency import (
    Conflict,
    Exhausted,
    IdempotencyStore,
    InFlight,
    Replayed,
    Started,
    Uncertain,
)
from handwritten.model import Model
from handwritten.policy import Decision, Policy
from handwritten.tools import ToolContext, ToolRegistry, as_session_user

from .graph import END, RunContext, StateGraph, Values

Update = dict[str, Any]

INITIAL_VALUES: dict[str, Any] = {
    "inbound": None,  # the event being applied: {"event_id", "input"}
    "seen_event_ids": [],
    "status": "running",  # running | awaiting_approval | reconcile_required | completed | stopped_max_steps
    "step": 0,  # model turns taken in this run
    "messages": [],  # the transcript, OpenAI-style
    "turn_call_ids": [],  # the current turn's calls, in the model's order
    "proposed": [],  # calls of the turn not yet validated
    "validated": [],  # calls that passed schema, waiting for policy
    "queue": [],  # admitted calls not yet run
    "pending_approval": [],  # high-risk calls of the turn not yet decided
    "approved": [],  # [call_id, token_id] of approvals granted this turn
    "pending_intent": None,  # the call whose intent is checkpointed and that runs next
    "turn_results": [],  # tool messages of the turn, entering the transcript when it closes
    "final_text": None,
    "stop_reason": None,
}


class ContractError(Exception):
    """The graph broke its own contract (a bug, never a model mistake)."""


@dataclass(frozen=True)
class Services:
    """What the contract's nodes use from outside the graph, passed to every call."""

    model: Model
    registry: ToolRegistry
    approvals: ApprovalAuthority
    idempotency: IdempotencyStore
    emit: Callable[[ev.Event], None]
    max_steps: int
    system_prompt: str | None = None
    policy: Policy = field(default_factory=Policy)
    max_attempts: int = 3
    user: str | None = None  # the session's user, whom a tool that acts for a user acts for (None: such a call is refused)


def contract_graph() -> StateGraph:
    """The contract's graph, not yet compiled."""
    graph = StateGraph(INITIAL_VALUES)
    for name, node in (
        ("accept", accept),
        ("model", model_turn),
        ("validate", validate),
        ("policy", apply_policy),
        ("approval", ask_approval),
        ("intent", checkpoint_intent),
        ("execute", execute),
        ("reconcile", ask_reconcile),
        ("close_turn", close_turn),
    ):
        graph.add_node(name, node)
    graph.set_entry_point("accept")
    graph.add_edge("accept", "model")
    graph.add_conditional_edges("model", after_model, ["validate", END])
    graph.add_edge("validate", "policy")
    graph.add_conditional_edges("policy", next_stage, ["approval", "intent", "close_turn"])
    graph.add_conditional_edges("approval", next_stage, ["approval", "intent", "close_turn"])
    graph.add_edge("intent", "execute")
    graph.add_conditional_edges("execute", next_stage, ["reconcile", "intent", "close_turn"])
    graph.add_conditional_edges("reconcile", next_stage, ["execute", "intent", "close_turn"])
    graph.add_edge("close_turn", "model")
    return graph


# -- routers ------------------------------------------------------------------------------


def after_model(values: Values) -> str:
    """A final answer or the step bound ends the run; tool calls go to validation."""
    return END if values["status"] in ("completed", "stopped_max_steps") else "validate"


def next_stage(values: Values) -> str:
    """Where a turn goes next, in order of precedence: nothing of a turn runs while a call waits for a human."""
    if values["status"] == "reconcile_required":
        return "reconcile"
    if values["pending_approval"]:
        return "approval"
    if values["pending_intent"] is not None:
        return "execute"
    return "intent" if values["queue"] else "close_turn"


# -- nodes --------------------------------------------------------------------------------


def accept(values: Values, run: RunContext) -> Update:
    """A new inbound event starts a run: the user's input enters the transcript."""
    services: Services = run.context
    event = values["inbound"]
    services.emit(ev.RunStarted(run.thread_id, event["event_id"]))
    system = [{"role": "system", "content": services.system_prompt}] if services.system_prompt else []
    return {
        "seen_event_ids": values["seen_event_ids"] + [event["event_id"]],
        "status": "running",
        "step": 0,
        "messages": (values["messages"] or system) + [{"role": "user", "content": event["input"]}],
        "final_text": None,
        "stop_reason": None,
    }


def model_turn(values: Values, run: RunContext) -> Update:
    """One model turn: final text ends the run, tool calls start a turn. The step bound is a terminal state."""
    services: Services = run.context
    if values["step"] >= services.max_steps:
        services.emit(ev.StoppedMaxSteps(services.max_steps))
        return {"status": "stopped_max_steps", "stop_reason": f"max_steps={services.max_steps} reached"}
    reply = services.model.complete(values["messages"], services.registry.openai_tools())
    step, calls = values["step"] + 1, reply.tool_calls
    services.emit(ev.ModelTurn(step, tuple(c.id for c in calls), tuple(c.name for c in calls), None if calls else (reply.text or "")))
    if not calls:
        text = reply.text or ""
        services.emit(ev.Finished(text))
        return {"step": step, "status": "completed", "final_text": text, "messages": values["messages"] + [{"role": "assistant", "content": text}]}
    message = {
        "role": "assistant",
        "content": reply.text,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments if isinstance(c.arguments, str) else canonical_json(c.arguments)}}
            for c in calls
        ],
    }
    return {
        "step": step,
        "messages": values["messages"] + [message],
        "turn_call_ids": [c.id for c in calls],
        "proposed": [{"call_id": c.id, "tool": c.name, "arguments": c.arguments} for c in calls],
    }


def validate(values: Values, run: RunContext) -> Update:
    """Schema, strictly, then the session's user for a tool that acts for one (``as_session_user``: arguments naming
    another user are refused): a rejection is the call's result and the call goes no further."""
    services: Services = run.context
    results, validated = list(values["turn_results"]), []
    for call in values["proposed"]:
        call_id, tool = call["call_id"], call["tool"]
        if tool not in services.registry:
            services.emit(ev.SchemaRejected(call_id, tool, (f"(tool): unknown tool {tool!r}",)))
            results.append(_tool_message(services, call_id, tool, "error", {"error": f"unknown tool {tool!r}"}))
            continue
        checked = services.registry.validator(tool).check(call["arguments"])
        if not checked.ok:
            services.emit(ev.SchemaRejected(call_id, tool, checked.errors))
            results.append(_tool_message(services, call_id, tool, "error", {"error": "invalid arguments", "details": list(checked.errors)}))
            continue
        args = as_session_user(services.registry.get(tool), checked.args, services.user)
        if args is None:
            results.append(_tool_message(services, call_id, tool, "refused", {"error": f"refused: {tool} acts for the session's user only"}))
            continue
        validated.append({"call_id": call_id, "tool": tool, "args": args, "args_hash": sha256_hex(canonical_json(args))})
    return {"proposed": [], "validated": validated, "turn_results": results}


def apply_policy(values: Values, run: RunContext) -> Update:
    """Policy by risk class: deny is the call's result; effectful calls get their idempotency key;
    high-risk calls wait for approval, and so does the rest of their turn."""
    services: Services = run.context
    results, queue, pending = list(values["turn_results"]), list(values["queue"]), list(values["pending_approval"])
    for call in values["validated"]:
        call_id, tool = call["call_id"], call["tool"]
        decision = services.policy.decide(tool, services.registry.get(tool).risk)
        services.emit(ev.CallAdmitted(call_id, tool, call["args_hash"], decision.value))
        if decision is Decision.DENY:
            results.append(_tool_message(services, call_id, tool, "refused", {"error": f"refused by policy: {tool} is never allowed"}))
            continue
        admitted = {**call, "idempotency_key": f"{run.thread_id}/{call_id}" if Policy.needs_idempotency(decision) else None}
        queue.append(admitted)
        if decision is Decision.NEEDS_APPROVAL:
            services.emit(ev.ApprovalRequested(call_id, tool, call["args_hash"]))
            pending.append(admitted)
    status = "awaiting_approval" if pending else values["status"]
    return {"validated": [], "queue": queue, "pending_approval": pending, "turn_results": results, "status": status}


def ask_approval(values: Values, run: RunContext) -> Update:
    """Interrupt until a human decides one pending call: a bound, single-use token approves it, a
    rejection becomes its result. A refused answer asks again, saying why."""
    services: Services = run.context
    question: dict[str, Any] = {"kind": "approval", "calls": values["pending_approval"]}
    while True:
        answer = run.interrupt(question)
        decided = _decide(services, run.thread_id, values, answer)
        if not isinstance(decided, str):
            return decided
        question = {**question, "refused": refuse(services, answer, decided)}


def _decide(services: Services, session_id: str, values: Values, answer: dict[str, Any]) -> Update | str:
    """The update an approve or reject answer makes, or the reason it is refused."""
    pending = values["pending_approval"]
    call = next((c for c in pending if c["call_id"] == answer["call_id"]), None)
    if call is None or answer["action"] not in ("approve", "reject"):
        return unexpected(answer)
    rest = [c for c in pending if c is not call]
    decided = {"pending_approval": rest, "status": "awaiting_approval" if rest else "running"}
    if answer["action"] == "reject":
        services.emit(ev.CallRejected(call["call_id"], answer["reason"]))
        message = _tool_message(services, call["call_id"], call["tool"], "rejected", {"error": f"rejected by the human approver: {answer['reason']}"})
        queue = [c for c in values["queue"] if c["call_id"] != call["call_id"]]
        return {**decided, "queue": queue, "turn_results": values["turn_results"] + [message]}
    verdict = services.approvals.verify(answer["token"], session_id, call["call_id"], call["tool"], call["args_hash"], spent_in(services.idempotency))
    # Single use is our own record, claimed before the approval is checkpointed: a crash in
    # between costs the human a new token, never a second effect.
    if isinstance(verdict, Approval) and not services.idempotency.claim_once(token_key(verdict.token_id)):
        verdict = Refusal.REUSED
    if isinstance(verdict, Refusal):
        return verdict.value
    services.emit(ev.ApprovalGranted(call["call_id"], verdict.token_id))
    return {**decided, "approved": values["approved"] + [[call["call_id"], verdict.token_id]]}


def unexpected(answer: dict[str, Any]) -> str:
    """The refusal for an answer to a question nobody asked (the engine's reasons)."""
    if answer["action"] == "reconcile":
        return f"no uncertain call {answer['call_id']!r} to reconcile"
    return Refusal.NOT_PENDING.value


def refuse(services: Services, answer: dict[str, Any], reason: str) -> str:
    """Record a refused answer in the trace; approval answers leave an ``approval_refused`` event."""
    if answer["action"] in ("approve", "reject"):
        services.emit(ev.ApprovalRefused(answer["call_id"], reason))
    return reason


def checkpoint_intent(values: Values, run: RunContext) -> Update:
    """Name the next call's intent; the checkpoint after this super-step precedes its executor."""
    services: Services = run.context
    call, *rest = values["queue"]
    approved = {call_id for call_id, _ in values["approved"]}
    needs_approval = services.policy.decide(call["tool"], services.registry.get(call["tool"]).risk) is Decision.NEEDS_APPROVAL
    if needs_approval and call["call_id"] not in approved:
        raise ContractError(f"call {call['call_id']} reached execution without an approval")
    return {"pending_intent": call, "queue": rest}


def execute(values: Values, run: RunContext) -> Update:
    """Run the intent: reads are retried freely; effects run at most once per idempotency key."""
    services: Services = run.context
    call = values["pending_intent"]
    if call["idempotency_key"] is None:
        return _run_read_only(services, run.thread_id, values, call)
    return _run_effectful(services, run.thread_id, values, call)


def _run_read_only(services: Services, session_id: str, values: Values, call: dict[str, Any]) -> Update:
    """No records: a read has no effect to repeat. Failures (timeouts included) are retried."""
    error = ""
    for attempt in range(1, services.max_attempts + 1):
        try:
            output = _call_tool(services, session_id, call, attempt)
        except Exception as exc:  # a tool error is a value for the model, never a crash of the run
            error = _describe(exc)
            services.emit(ev.ToolAttemptFailed(call["call_id"], attempt, error))
            continue
        return _finish(services, values, call, "ok", output)
    return _finish(services, values, call, "error", {"error": f"failed after {services.max_attempts} attempts: {error}"})


def _run_effectful(services: Services, session_id: str, values: Values, call: dict[str, Any]) -> Update:
    """At most one execution per key; a replay returns the stored result; unknown outcomes stop the run."""
    key = call["idempotency_key"]
    while True:
        match services.idempotency.begin(key, call["args_hash"], services.max_attempts):
            case Replayed(result=stored):
                return _finish(services, values, call, "replayed", stored, encoded=True)
            case Conflict():
                return _finish(services, values, call, "error", {"error": "idempotency key already used with different arguments"})
            case Exhausted(error=error):
                return _finish(services, values, call, "error", {"error": f"failed after {services.max_attempts} attempts: {error}"})
            case InFlight():  # on resume: its process died inside the executor, so the outcome is unknown
                return _uncertain(services, call, "found in progress: its process died, or another delivery holds it")
            case Uncertain():
                return _uncertain(services, call, "an earlier attempt's outcome is unknown")
            case Started(attempt=attempt):
                try:
                    output = _call_tool(services, session_id, call, attempt)
                except TimeoutError as exc:  # entered, outcome unknown: never retried automatically
                    services.idempotency.mark_uncertain(key)
                    return _uncertain(services, call, f"timed out after the executor was entered: {_describe(exc)}")
                except Exception as exc:  # failed before any effect: a retry may run under the same key
                    services.idempotency.fail(key, _describe(exc))
                    services.emit(ev.ToolAttemptFailed(call["call_id"], attempt, _describe(exc)))
                    continue
                services.idempotency.complete(key, output)
                return _finish(services, values, call, "ok", output)


def ask_reconcile(values: Values, run: RunContext) -> Update:
    """Interrupt until a human settles the uncertain call, explicitly and audited: ``confirmed``
    never runs the executor again; ``not_executed`` lets it run again under the same key."""
    services: Services = run.context
    call = values["pending_intent"]
    question: dict[str, Any] = {"kind": "reconcile", "call_id": call["call_id"], "tool": call["tool"], "reason": values["stop_reason"]}
    while True:
        answer = run.interrupt(question)
        if answer["action"] == "reconcile" and answer["call_id"] == call["call_id"]:
            break
        question = {**question, "refused": refuse(services, answer, unexpected(answer))}
    outcome = answer["outcome"]
    if outcome not in ("confirmed", "not_executed"):
        raise ValueError(f"reconcile outcome must be 'confirmed' or 'not_executed', not {outcome!r}")
    settled = {"reconciled": outcome}
    services.idempotency.resolve(call["idempotency_key"], outcome, settled)
    services.emit(ev.Reconciled(call["call_id"], outcome))
    resumed = {"status": "running", "stop_reason": None}
    if outcome == "confirmed":
        return {**resumed, **_finish(services, values, call, "reconciled", settled)}
    return resumed


def close_turn(values: Values, run: RunContext) -> Update:
    """Every call of the turn is resolved: its results enter the transcript in the model's call order."""
    order = {call_id: index for index, call_id in enumerate(values["turn_call_ids"])}
    results = sorted(values["turn_results"], key=lambda m: order.get(m["tool_call_id"], len(order)))
    return {"messages": values["messages"] + results, "turn_call_ids": [], "turn_results": [], "approved": []}


# -- helpers ------------------------------------------------------------------------------


def _call_tool(services: Services, session_id: str, call: dict[str, Any], attempt: int) -> Any:
    spec = services.registry.get(call["tool"])
    return spec.executor(call["args"], ToolContext(session_id, call["call_id"], call["idempotency_key"], attempt))


def _finish(services: Services, values: Values, call: dict[str, Any], status: str, output: Any, encoded: bool = False) -> Update:
    message = _tool_message(services, call["call_id"], call["tool"], status, output, encoded)
    return {"pending_intent": None, "turn_results": values["turn_results"] + [message]}


def _uncertain(services: Services, call: dict[str, Any], reason: str) -> Update:
    services.emit(ev.UncertainOutcome(call["call_id"], reason))
    return {"status": "reconcile_required", "stop_reason": f"{call['call_id']}: {reason}"}


def _tool_message(services: Services, call_id: str, tool: str, status: str, output: Any, encoded: bool = False) -> dict[str, Any]:
    """Tool output enters the transcript as data (a tool message), never as an instruction."""
    content = output if encoded else canonical_json(output)
    services.emit(ev.ToolResult(call_id, tool, status, content))
    return {"role": "tool", "tool_call_id": call_id, "name": tool, "content": content}


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
