"""The agent engine: an explicit state machine over ``AgentState``.

Every tool call passes schema -> policy -> checkpoint -> execute -> result, in that
order, never skipping a stage. The engine keeps its own records (checkpoints,
idempotency, used approval tokens) and decides nothing from anybody else's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from . import events as ev
from .approvals import Approval, ApprovalAuthority, Refusal, spent_in, token_key
from .canonical import arguments_text, canonical_json, sha256_hex
from .checkpoint import AgentState, CheckpointStore, PendingCall
from .idempotency import (
    Conflict,
    Exhausted,
    IdempotencyStore,
    InFlight,
    Replayed,
    Started,
    Uncertain,
)
from .model import Model, ModelUnavailable, ToolCall
from .policy import Decision, Policy
from .resume import resume_position
from .steps import AwaitApproval, Final, RunAgain, Step, Stopped
from .tools import ToolContext, ToolRegistry, as_session_user

RunStatus = Literal["completed", "awaiting_approval", "reconcile_required", "stopped_max_steps", "model_unavailable", "refused"]
ReconcileOutcome = Literal["confirmed", "not_executed"]
RUN_UNFINISHED = "run_unfinished"  # the refusal of a new inbound event on a session whose run is unfinished (``Engine.run``)
MAX_ATTEMPTS = 3  # the default bound on a tool call's attempts, all under one idempotency key (``Engine(max_attempts=...)``)


class EngineError(Exception):
    """A misuse of the engine or a harness bug; carries the state it happened in."""

    def __init__(self, message: str, state: AgentState | None = None) -> None:
        super().__init__(message)
        self.state = state


@dataclass(frozen=True)
class RunResult:
    """What a call to the engine ended with. ``refusal`` names why an approval or action was refused."""

    status: RunStatus
    state: AgentState
    final_text: str | None = None
    pending: tuple[PendingCall, ...] = ()
    refusal: str | None = None


@dataclass(frozen=True)
class Hooks:
    """Observation points for the harness; ``after_checkpoint`` runs between an intent checkpoint and its executor."""

    after_checkpoint: Callable[[PendingCall], None] = lambda call: None


class Engine:
    """Runs sessions of a tool-using agent under the safety contract."""

    def __init__(
        self,
        *,
        model: Model,
        registry: ToolRegistry,
        checkpoints: CheckpointStore,
        idempotency: IdempotencyStore,
        approvals: ApprovalAuthority,
        policy: Policy | None = None,
        trace: Callable[[ev.Event], None] | None = None,
        hooks: Hooks | None = None,
        max_steps: int = 10,
        max_attempts: int = MAX_ATTEMPTS,
        system_prompt: str | None = None,
        user: str | None = None,
    ) -> None:
        self._model = model
        self._registry = registry
        self._checkpoints = checkpoints
        self._idempotency = idempotency
        self._approvals = approvals
        self._policy = policy or Policy()
        self._trace = trace  # None: no sink, and no event is even built
        self._hooks = hooks or Hooks()
        self._max_steps = max_steps
        self._max_attempts = max_attempts
        self._system_prompt = system_prompt
        self._user = user  # the session's user: a tool that acts for a user acts for this one only
        self._tools = registry.openai_tools()

    def _emit(self, kind: Callable[..., ev.Event], *fields: Any) -> None:
        """Trace ``kind(*fields)``; an engine without a trace sink does not even build the event."""
        if self._trace is not None:
            self._trace(kind(*fields))

    # -- public transitions ---------------------------------------------------------------

    def run(self, session_id: str, user_input: str, event_id: str) -> RunResult:
        """Apply one inbound event (user input). An event id seen before is ignored; a new one on an unfinished run is refused."""
        state = self._checkpoints.load(session_id)
        if state is not None and event_id in state.seen_event_ids:
            self._emit(ev.DuplicateEvent, event_id)
            return RunResult("refused", state, final_text=state.final_text, pending=state.pending_approval, refusal="duplicate_event")
        if state is not None and state.status not in ("completed", "stopped_max_steps"):
            # It would start a turn beside the unfinished one: refused, not marked seen (it may come again once settled).
            self._emit(ev.EventRefused, event_id, "crashed" if state.status == "running" else state.status)
            return RunResult("refused", state, final_text=state.final_text, pending=state.pending_approval, refusal=RUN_UNFINISHED)
        if state is None:
            system = ({"role": "system", "content": self._system_prompt},) if self._system_prompt else ()
            state = AgentState(session_id=session_id, messages=system)
        state = state.evolve(
            event_id=event_id,
            seen_event_ids=state.seen_event_ids + (event_id,),
            step=0,
            status="running",
            messages=state.messages + ({"role": "user", "content": user_input},),
            final_text=None,
            stop_reason=None,
        )
        self._emit(ev.RunStarted, session_id, event_id)
        self._checkpoints.save(state)
        return self._advance(state)

    def approve(self, session_id: str, call_id: str, token: str) -> RunResult:
        """Approve one pending high-risk call with a token bound to it; any misuse is refused."""
        state = self._load(session_id)
        call = next((c for c in state.pending_approval if c.call_id == call_id), None)
        verdict: Approval | Refusal = Refusal.NOT_PENDING
        if call is not None and state.status == "awaiting_approval":
            verdict = self._approvals.verify(token, session_id, call_id, call.tool, call.args_hash, spent_in(self._idempotency))
        if isinstance(verdict, Approval) and not self._idempotency.claim_once(token_key(verdict.token_id)):
            verdict = Refusal.REUSED
        if isinstance(verdict, Refusal):
            self._emit(ev.ApprovalRefused, call_id, verdict.value)
            return RunResult("refused", state, pending=state.pending_approval, refusal=verdict.value)
        self._emit(ev.ApprovalGranted, call_id, verdict.token_id)
        state = state.evolve(
            status="running",
            pending_approval=tuple(c for c in state.pending_approval if c.call_id != call_id),
            approved=state.approved + ((call_id, verdict.token_id),),
        )
        self._checkpoints.save(state)
        return self._advance(state)

    def reject(self, session_id: str, call_id: str, reason: str) -> RunResult:
        """Reject one pending call; the model sees the rejection as that call's result."""
        state = self._load(session_id)
        call = next((c for c in state.pending_approval if c.call_id == call_id), None)
        if call is None:
            self._emit(ev.ApprovalRefused, call_id, Refusal.NOT_PENDING.value)
            return RunResult("refused", state, pending=state.pending_approval, refusal=Refusal.NOT_PENDING.value)
        self._emit(ev.CallRejected, call_id, reason)
        state = self._with_result(
            state,
            call_id,
            call.tool,
            "rejected",
            {"error": f"rejected by the human approver: {reason}"},
            status="running",
            pending_approval=tuple(c for c in state.pending_approval if c.call_id != call_id),
            queue=tuple(c for c in state.queue if c.call_id != call_id),
        )
        self._checkpoints.save(state)
        return self._advance(state)

    def resume(self, session_id: str) -> RunResult:
        """Continue from the latest checkpoint, as a fresh process would after a crash."""
        state = self._load(session_id)
        if state.status in ("completed", "stopped_max_steps"):
            return self._result(state)
        position, state = resume_position(state, self._idempotency, self._checkpoints, self._trace or ev.discard)
        intent = state.pending_intent
        self._emit(
            ev.Resumed,
            position,
            intent.call_id if intent else None,
            intent.tool if intent else None,
            intent.args_hash if intent else None,
            tuple(call_id for call_id, _ in state.approved),
        )
        return self._advance(state)

    def reconcile_uncertain(self, session_id: str, call_id: str, outcome: ReconcileOutcome) -> RunResult:
        """Settle an uncertain call explicitly: ``confirmed`` never calls the executor again;
        ``not_executed`` lets the call run again under the same key (attempts still count)."""
        if outcome not in ("confirmed", "not_executed"):
            raise ValueError(f"reconcile outcome must be 'confirmed' or 'not_executed', not {outcome!r}")
        state = self._load(session_id)
        intent = state.pending_intent
        if state.status != "reconcile_required" or intent is None or intent.call_id != call_id:
            return RunResult("refused", state, refusal=f"no uncertain call {call_id!r} to reconcile")
        assert intent.idempotency_key is not None  # read-only calls are never uncertain
        settled = {"reconciled": outcome}
        self._idempotency.resolve(intent.idempotency_key, outcome, settled)
        self._emit(ev.Reconciled, call_id, outcome)
        if outcome == "confirmed":
            state = self._with_result(state, call_id, intent.tool, "reconciled", settled, pending_intent=None, status="running", stop_reason=None)
        else:
            state = state.evolve(status="running", stop_reason=None)
        self._checkpoints.save(state)
        return self._advance(state)

    # -- the loop -------------------------------------------------------------------------

    def _advance(self, state: AgentState) -> RunResult:
        """Step until a human is needed or the run ends; every pause is checkpointed."""
        while True:
            match self._step(state):
                case RunAgain(state=state):
                    continue
                case AwaitApproval(state=paused):
                    paused = paused.evolve(status="awaiting_approval")
                    self._checkpoints.save(paused)
                    return RunResult("awaiting_approval", paused, pending=paused.pending_approval)
                case Final(state=done):
                    self._checkpoints.save(done)
                    return RunResult("completed", done, final_text=done.final_text)
                case Stopped(state=stopped, status=status):
                    self._checkpoints.save(stopped)
                    return RunResult(status, stopped, final_text=stopped.final_text, pending=stopped.pending_approval)

    def _step(self, state: AgentState) -> Step:
        # A run that already ended or stopped stays where it is.
        if state.status == "completed":
            return Final(state)
        if state.status in ("reconcile_required", "stopped_max_steps"):
            return Stopped(state, state.status)
        # A high-risk call of this turn waits for a human: nothing of the turn runs before.
        if state.pending_approval:
            return AwaitApproval(state)
        # Admitted calls run one at a time, each behind its own intent checkpoint.
        if state.pending_intent is not None or state.queue:
            return self._execute_next(state)
        # The turn is resolved: its results enter the transcript in the model's call order.
        if state.turn_call_ids:
            return RunAgain(self._close_turn(state))
        # The step bound is a terminal state with a reason, not an exception.
        if state.step >= self._max_steps:
            self._emit(ev.StoppedMaxSteps, self._max_steps)
            return Stopped(state.evolve(status="stopped_max_steps", stop_reason=f"max_steps={self._max_steps} reached"), "stopped_max_steps")
        return self._model_turn(state)

    def _model_turn(self, state: AgentState) -> Step:
        try:
            reply = self._model.complete(state.messages, self._tools)
        except ModelUnavailable as exc:  # the checkpoint stays at the last completed turn; the failed turn is not a step
            self._emit(ev.ModelUnavailableStop, state.step + 1, exc.attempts, exc.reason)
            return Stopped(state.evolve(status="model_unavailable", stop_reason=f"model unavailable: {exc.reason}"), "model_unavailable")
        step, calls = state.step + 1, reply.tool_calls
        self._emit(ev.ModelTurn, step, tuple(c.id for c in calls), tuple(c.name for c in calls), None if calls else (reply.text or ""))
        if not calls:
            text = reply.text or ""
            self._emit(ev.Finished, text)
            message: dict[str, Any] = {"role": "assistant", "content": text}
            return Final(state.evolve(step=step, status="completed", final_text=text, messages=state.messages + (message,)))
        texts = [arguments_text(c.arguments) for c in calls]  # encoded once: the transcript's text is the check's too (None: no JSON, refused)
        tool_calls = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": t or ""}} for c, t in zip(calls, texts, strict=True)]
        message = {"role": "assistant", "content": reply.text, "tool_calls": tool_calls}
        state = state.evolve(step=step, messages=state.messages + (message,), turn_call_ids=tuple(c.id for c in calls))
        for call, encoded in zip(calls, texts, strict=True):
            state = self._admit(state, call, encoded)
        return RunAgain(state)

    # -- stages ---------------------------------------------------------------------------

    def _admit(self, state: AgentState, call: ToolCall, text: str | None = None) -> AgentState:
        """Schema, then policy. A rejection becomes the call's result; the executor is never reached.
        ``text``: the call's arguments as the transcript holds them (their canonical JSON, for arguments that are not a text)."""
        if call.name not in self._registry:
            self._emit(ev.SchemaRejected, call.id, call.name, (f"(tool): unknown tool {call.name!r}",))
            return self._with_result(state, call.id, call.name, "error", {"error": f"unknown tool {call.name!r}"})
        checked = self._registry.validator(call.name).check(call.arguments, text)  # a text's own encoding is not used
        if not checked.ok:
            self._emit(ev.SchemaRejected, call.id, call.name, checked.errors)
            error: dict[str, Any] = {"error": "invalid arguments", "details": list(checked.errors)}
            return self._with_result(state, call.id, call.name, "error", error)
        spec = self._registry.get(call.name)
        args = as_session_user(spec, checked.args, self._user)
        if args is None:
            return self._with_result(state, call.id, call.name, "refused", {"error": f"refused: {call.name} acts for the session's user only"})
        decision = self._policy.decide(call.name, spec.risk)
        digest = sha256_hex(checked.canonical if args is checked.args else canonical_json(args))
        self._emit(ev.CallAdmitted, call.id, call.name, digest, decision.value)
        if decision is Decision.DENY:
            return self._with_result(state, call.id, call.name, "refused", {"error": f"refused by policy: {call.name} is never allowed"})
        key = f"{state.session_id}/{call.id}" if Policy.needs_idempotency(decision) else None
        pending = PendingCall(call.id, call.name, args, digest, key)
        state = state.evolve(queue=state.queue + (pending,))
        if decision is Decision.NEEDS_APPROVAL:
            self._emit(ev.ApprovalRequested, call.id, call.name, digest)
            state = state.evolve(pending_approval=state.pending_approval + (pending,))
        return state

    def _execute_next(self, state: AgentState) -> Step:
        """Checkpoint the intent (unless a resumed state already holds it), then run the call."""
        call = state.pending_intent
        if call is None:
            call = state.queue[0]
            if call.idempotency_key and self._needs_approval(call) and call.call_id not in dict(state.approved):
                raise EngineError(f"call {call.call_id} reached execution without an approval", state)
            state = state.evolve(pending_intent=call, queue=state.queue[1:])
            self._checkpoints.save(state)
            self._emit(ev.IntentCheckpointed, call.call_id, call.idempotency_key)
            self._hooks.after_checkpoint(call)
        if call.idempotency_key is None:
            return self._run_read_only(state, call)
        return self._run_effectful(state, call, call.idempotency_key)

    def _run_read_only(self, state: AgentState, call: PendingCall) -> Step:
        """No records needed: a read has no effect to repeat. Failures (timeouts included) are retried."""
        error = ""
        for attempt in range(1, self._max_attempts + 1):
            try:
                output = self._execute(state, call, None, attempt)
            except Exception as exc:  # a tool error is a value for the model, never a crash of the loop
                error = _describe(exc)
                self._emit(ev.ToolAttemptFailed, call.call_id, attempt, error)
                continue
            return RunAgain(self._finish_call(state, call, "ok", output))
        return RunAgain(self._finish_call(state, call, "error", {"error": f"failed after {self._max_attempts} attempts: {error}"}))

    def _run_effectful(self, state: AgentState, call: PendingCall, key: str) -> Step:
        """At most one execution per key; a replay returns the stored result; unknown outcomes stop the run."""
        while True:
            match self._idempotency.begin(key, call.args_hash, self._max_attempts):
                case Replayed(result=stored):
                    return RunAgain(self._finish_call(state, call, "replayed", stored, encoded=True))
                case Conflict():
                    error = {"error": "idempotency key already used with different arguments"}
                    return RunAgain(self._finish_call(state, call, "error", error))
                case Exhausted(error=error):
                    return RunAgain(self._finish_call(state, call, "error", {"error": f"failed after {self._max_attempts} attempts: {error}"}))
                case InFlight() | Uncertain():
                    return self._uncertain(state, call, "another delivery holds this call, or its outcome is unknown")
                case Started(attempt=attempt):
                    try:
                        output = self._execute(state, call, key, attempt)
                    except TimeoutError as exc:
                        self._idempotency.mark_uncertain(key)
                        return self._uncertain(state, call, f"timed out after the executor was entered: {_describe(exc)}")
                    except Exception as exc:
                        self._idempotency.fail(key, _describe(exc))
                        self._emit(ev.ToolAttemptFailed, call.call_id, attempt, _describe(exc))
                        continue
                    self._idempotency.complete(key, output)
                    return RunAgain(self._finish_call(state, call, "ok", output))

    def _execute(self, state: AgentState, call: PendingCall, key: str | None, attempt: int) -> Any:
        spec = self._registry.get(call.tool)
        return spec.executor(call.args, ToolContext(state.session_id, call.call_id, key, attempt))

    def _uncertain(self, state: AgentState, call: PendingCall, reason: str) -> Step:
        self._emit(ev.UncertainOutcome, call.call_id, reason)
        return Stopped(state.evolve(status="reconcile_required", stop_reason=f"{call.call_id}: {reason}"), "reconcile_required")

    # -- helpers --------------------------------------------------------------------------

    def _needs_approval(self, call: PendingCall) -> bool:
        return self._policy.decide(call.tool, self._registry.get(call.tool).risk) is Decision.NEEDS_APPROVAL

    def _finish_call(self, state: AgentState, call: PendingCall, outcome: str, output: Any, encoded: bool = False) -> AgentState:
        return self._with_result(state, call.call_id, call.tool, outcome, output, encoded, pending_intent=None)

    def _with_result(self, state: AgentState, call_id: str, tool: str, outcome: str, output: Any, encoded: bool = False, **changes: Any) -> AgentState:
        """Tool output enters the transcript as data: a tool message, never an instruction.
        ``outcome`` is the result's status in the trace; ``changes`` are applied to the state too."""
        content = output if encoded else canonical_json(output)
        self._emit(ev.ToolResult, call_id, tool, outcome, content)
        message = {"role": "tool", "tool_call_id": call_id, "name": tool, "content": content}
        return state.evolve(turn_results=state.turn_results + (message,), **changes)

    def _close_turn(self, state: AgentState) -> AgentState:
        order = {call_id: index for index, call_id in enumerate(state.turn_call_ids)}
        results = sorted(state.turn_results, key=lambda m: order.get(m["tool_call_id"], len(order)))
        state = state.evolve(messages=state.messages + tuple(results), turn_call_ids=(), turn_results=(), approved=())
        self._checkpoints.save(state)
        return state

    def _load(self, session_id: str) -> AgentState:
        state = self._checkpoints.load(session_id)
        if state is None:
            raise EngineError(f"no checkpoint for session {session_id!r}")
        return state

    def _result(self, state: AgentState) -> RunResult:
        if state.status == "running":
            raise EngineError("a running state has no result yet", state)
        return RunResult(state.status, state, final_text=state.final_text, pending=state.pending_approval)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
