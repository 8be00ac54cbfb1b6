"""Contract glue for Agent Framework (see MAPPING.md). Every contract tool asks for the framework's approval
(``approval_mode="always_require"``), so the framework holds each batch whole, runs nothing of it before the pause, and
runs the approved calls in the model's order; the glue decides who answers each request: the human for an admitted
high-risk call, the glue itself (an approval, with the turn's decision) for the others. ``admit`` runs on the model's
raw arguments as its reply arrives (a chat middleware); a function middleware (the docs' place for a guard around
every call) answers a refused call with the refusal and runs an admitted one with ``run_once_async`` under
``<session>/<call id>``; an uncertain outcome aborts the run fail-closed (``MiddlewareFailure``) until a reconcile. The
agent persists its history at every model call (``require_per_service_call_history_persistence``), and the glue saves
the session file before each model call and before each effect; the decisions are saved, by request, before the run
they start. The step bound is the chat middleware's, counted from the saved conversation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_framework import (
    AgentResponse,
    AgentSession,
    ChatContext,
    ChatResponse,
    Content,
    FunctionInvocationContext,
    Message,
    MiddlewareFailure,
    chat_middleware,
    function_middleware,
)

from adapters.glue_blocks import Admitted, Failed, Ok, Reconciled, Rejected, Replay, Uncertain, admit, run_once_async, turns_left
from handwritten.canonical import canonical_json
from harness.column_side.protocol import Decision as HumanDecision
from harness.column_side.protocol import StepOutcome

from .model import to_neutral
from .session import SESSION, AFSession, history, open_calls

DECISIONS, RECONCILE = "decisions.json", "reconcile.json"
_STATUS = {Ok: "ok", Reconciled: "reconciled", Replay: "replayed"}


class StepBound(Exception):
    """The contract's step bound, reached before a model call."""


class OutcomeUnknown(MiddlewareFailure):
    """A call's executor was entered and its outcome is unknown (``GlueSession.unknown``): the run stops until a reconcile."""


class GlueSession(AFSession):
    """The session with the contract: admission, approvals held as a turn, run once under a key, saved before every
    effect, the step bound, and reconcile."""

    running: AgentSession | None = None  # the session of the run in progress, which the checkpoints save
    unknown: str | None = None  # the call of this run whose outcome is unknown

    def middleware(self) -> list[Any]:
        contract = self.contract
        assert contract is not None

        @chat_middleware
        async def bounded(context: ChatContext, call_next: Any) -> None:
            sending = list(context.messages)  # what this model call adds to the persisted history: the latest results
            conversation = [*history(self.running), *sending]
            self._trace(conversation)
            self._checkpoint(sending)
            if turns_left(contract, [m["role"] for m in to_neutral(conversation)]) == 0:
                raise StepBound
            await call_next()
            assert isinstance(context.result, ChatResponse)  # the agent's runs do not stream
            for call in (c for m in context.result.messages for c in m.contents if c.type == "function_call"):
                admit(contract, call.name or "", call.call_id or "", call.arguments)  # schema, then policy, before anything

        @function_middleware
        async def guard(context: FunctionInvocationContext, call_next: Any) -> None:
            name, call_id = context.function.name, str(context.metadata["call_id"])
            verdict = self._verdict(self._call(call_id))
            if isinstance(verdict, Rejected):
                self.statuses[call_id] = verdict.status
                context.result = canonical_json(verdict.output)
                return
            if self.unknown is not None:  # a call before it in the batch awaits its reconcile (the batch's tasks
                raise OutcomeUnknown  # start before the abort cancels them, and never suspend)
            self._checkpoint()  # the conversation that asked for the call, saved before its effect
            if (output := await self._run_once(name, call_id, verdict.args)) is None:
                self.unknown = call_id
                raise OutcomeUnknown
            context.result = output

        return [bounded, guard]

    def _verdict(self, call: Content) -> Admitted | Rejected:
        assert self.contract is not None
        return admit(self.contract, call.name or "", call.call_id or "", call.arguments, announce=False)

    def asks_human(self, call: Content) -> bool:
        """Only an admitted high-risk call waits for the human; the glue answers every other request itself."""
        verdict = self._verdict(call)
        return isinstance(verdict, Admitted) and verdict.needs_approval

    async def _run_once(self, name: str, call_id: str, args: Any) -> str | None:
        """The admitted call run once under its key, as its answer; None while its outcome is unknown."""
        assert self.contract is not None

        async def execute() -> Any:
            self.world.enter(name, call_id, args)
            return self.world.execute(name, call_id, args)

        done = await run_once_async(self.contract, name, call_id, args, execute, self._settle)
        if isinstance(done, Uncertain):
            return None
        self.statuses[call_id] = "error" if isinstance(done, Failed) else _STATUS[type(done)]
        if isinstance(done, Replay):  # the stored result, already canonical JSON
            return str(done.output)
        return canonical_json({"error": done.error} if isinstance(done, Failed) else done.output)

    def _settle(self, call_id: str) -> str | None:
        """The human's outcome of ``call_id``'s uncertain outcome, used once: a later unknown outcome waits for its own."""
        outcomes = _read(self.scratch / RECONCILE)
        outcome = outcomes.pop(call_id, None)
        _write(self.scratch / RECONCILE, outcomes)
        return outcome

    def _checkpoint(self, sending: list[Message] = ()) -> None:  # type: ignore[assignment]
        """The running session saved, with the messages a model call is about to be sent (the framework persists those
        after the call, into its in-memory history provider's state: ``state["in_memory"]["messages"]``)."""
        if self.running is not None:
            saved = self.running.to_dict()
            saved["state"].setdefault("in_memory", {}).setdefault("messages", []).extend(m.to_dict() for m in sending)
            (self.scratch / SESSION).write_text(json.dumps(saved), encoding="utf-8")

    def _call(self, call_id: str) -> Content:
        """The call as the model sent it (latest first: a call id may come again). The running history holds every call
        the framework runs: it persists each model reply before running its calls, and an approved call is in the
        session it was loaded with."""
        calls = (c for m in reversed(history(self.running)) for c in reversed(m.contents) if c.type == "function_call")
        return next(c for c in calls if c.call_id == call_id)

    async def _run(self, messages: Any, session: AgentSession | None = None) -> StepOutcome:
        """A run, then, while it pauses on requests only the glue answers, a run that approves them."""
        self.running = session or self.load() or self.agent.create_session(session_id=self.scenario.session_id)
        outcome = await super()._run(messages, self.running)
        while outcome.status == "completed" and (held := self._state().get("held")):
            go = [self.asked()[c].to_function_approval_response(approved=True) for c in held]
            outcome = await super()._run([Message(role="user", contents=go)], self.running)
        return outcome

    async def _agent_run(self, messages: Any, session: AgentSession) -> AgentResponse[Any] | None:
        try:
            return await super()._agent_run(messages, session)
        except StepBound:  # a terminal state, not an error
            self._set_state("stopped_max_steps")
        except OutcomeUnknown:
            self._set_state("reconcile_required", uncertain=self.unknown)
        return None

    async def decide(self, decisions: list[HumanDecision]) -> StepOutcome:
        """The human's decisions, with a go-ahead for the requests only the glue answers (the framework runs nothing of
        the batch until every request of it is answered); each saved under its request's id before the run, so a kill
        inside the run loses none and a call id the model uses again never inherits it."""
        go = [*decisions, *(HumanDecision(c, True) for c in self._state().get("held", ()))]
        asked = self.asked()
        _write(self.scratch / DECISIONS, _read(self.scratch / DECISIONS) | {asked[d.call_id].id or "": d.approve for d in go if d.call_id in asked})
        return await super().decide(go)

    async def resume(self) -> StepOutcome:
        """What a resume continues, as the engine's does: nothing after a finished run, and nothing at a pause (it waits for
        its human, or its reconcile). After a kill, the calls of the last model turn left without a result are answered by
        the glue when none waits for a human (``_answer``: the framework took their approvals before the kill); with one
        still undecided, the saved decisions go in again and the run pauses for the rest; with none open, the run goes on."""
        session, decided = self.load(), _read(self.scratch / DECISIONS)
        if session is None:
            return self.outcome().refused("nothing saved to resume from")
        if (status := self.outcome().status) in ("completed", "stopped_max_steps"):
            return self.outcome()
        calls = open_calls(history(session))
        self.emit({"kind": "resumed", **self._position(history(session), {c.call_id or "": decided[c.id or ""] for c in calls if c.id in decided})})
        if status != "crashed":
            return self.outcome()
        if calls and all(c.id in decided or not self.asks_human(c) for c in calls):
            return await self._answer(session, calls)
        if calls:
            asked = [r for r in self.asked().values() if r.function_call is not None and r.function_call.id in {c.id for c in calls}]
            if again := [r.to_function_approval_response(approved=decided[r.id or ""]) for r in asked if r.id in decided]:
                return await self._run([Message(role="user", contents=again)], session)
            return self._finish(asked)
        return await self._run(None, session)

    async def reconcile(self, call_id: str, outcome: str) -> StepOutcome:
        """The human's outcome recorded for ``settle``, then the calls of the turn answered by the glue."""
        _write(self.scratch / RECONCILE, _read(self.scratch / RECONCILE) | {call_id: outcome})
        session = self.load()
        assert session is not None
        return await self._answer(session, open_calls(history(session)))

    async def _answer(self, session: AgentSession, calls: list[Content]) -> StepOutcome:
        """The glue answers ``calls`` itself, in order, under their keys (a call that ran replays its result; an uncertain
        one settles by the human's reconcile, or stops here until one), then the run goes on with their results as the
        calls' function results, the way a caller answers calls the framework left to it."""
        decided, answers = _read(self.scratch / DECISIONS), []
        for call in calls:
            call_id, verdict = call.call_id or "", self._verdict(call)
            if decided.get(call.id or "") is False:
                self.statuses[call_id], output = "rejected", canonical_json({"error": "rejected by the human"})
            elif isinstance(verdict, Rejected):
                self.statuses[call_id], output = verdict.status, canonical_json(verdict.output)
            elif (ran := await self._run_once(call.name or "", call_id, verdict.args)) is not None:
                output = ran
            else:
                return self._set_state("reconcile_required", uncertain=call_id)
            answers.append(Content.from_function_result(call_id=call_id, result=output))
        return await self._run([Message(role="tool", contents=answers)], session)


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _write(path: Path, value: dict[str, Any]) -> None:
    path.write_text(json.dumps(value), encoding="utf-8")
