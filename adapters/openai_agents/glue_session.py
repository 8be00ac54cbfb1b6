"""Contract glue around the session: what ``contract`` mode adds to ``AgentSession`` (all of it counted as glue).

- ``outcome``: a call the glue's records hold as uncertain puts the session in ``reconcile_required``, unless the
  saved run awaits a decision (a restored pause is the session's state again, as the engine's restore puts its
  checkpoint back: the approval then meets the record); a call whose approval the glue holds is no longer pending;
- ``decide``: a turn is approved as a whole (``whole_turn``): an approval is held beside the saved run until no
  call of the turn is left undecided, then every held approval goes into the ``RunState`` with the last decision;
  a rejection goes in at once (the SDK answers it and pauses again on the rest: nothing runs);
- ``_decision``: only the human's calls wait on a decision: a call the glue paused with its turn
  (``Glue.on_llm_end``) is never pending, never approved;
- ``run``: once no call of the saved run's turn is undecided, the calls the glue paused with it are approved (the
  SDK keeps a paused call paused until it is decided); a turn's
  function calls run one at a time, in the model's order (``one_call_at_a_time``); the glue's
  stop (``ReconcileRequired``, re-raised by the SDK) ends the step in ``reconcile_required`` with the call a
  reconcile may settle, and no call after it has started;
- ``position``: a resume continues at the call of the glue's last intent in the turn (where the run stopped),
  refined by its record: executed (``after_execute``), or unknown (``reconcile``);
- ``_checkpoint``: the decided ``RunState`` is saved before the run it starts, so the decisions survive a
  crash inside that run (the SDK writes nothing while a run goes on);
- ``_bound``: ``max_turns`` from the saved conversation (``Glue.max_turns``);
- ``_status``: the glue's answer to a call;
- ``resume``: a conversation that ends in the model's answer, with no paused run saved, has nothing to continue:
  no run starts (the engine's resume of a completed run), where the SDK would ask the model for another turn, or
  stop at ``max_turns=0`` when the finished run used the last one;
- ``reconcile``: the human's outcome handed to the glue, then a resume: the glue settles the call when the
  resumed run invokes it again.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from agents import Agent, RunConfig, RunState, ToolExecutionConfig
from agents.items import ToolApprovalItem

from adapters.column import SessionContext
from adapters.glue_blocks import held_approvals, resume_position, whole_turn
from adapters.held_decisions import HELD_FILE
from handwritten.canonical import args_hash
from harness.column_side.protocol import Decision, StepOutcome

from .glue import Glue, ReconcileRequired
from .session import AgentSession, call_of
from .tools import gated


# The SDK starts every function call of a turn at once and, when one raises, cancels the others wherever they
# are (``_FunctionToolBatchExecutor``): the glue's stop (``ReconcileRequired``) would leave a sibling finished,
# finished without its output saved, or cut inside its executor (a second uncertain call), by chance. One call at
# a time (the SDK's own ``ToolExecutionConfig``) keeps the contract's order: nothing after an uncertain call runs.
def one_call_at_a_time() -> RunConfig:
    """A fresh ``RunConfig`` per run (the SDK keeps state on it) that runs a turn's function calls in order."""
    return RunConfig(tool_execution=ToolExecutionConfig(max_function_tool_concurrency=1))


class ContractSession(AgentSession):
    """``AgentSession`` with the contract glue."""

    def __init__(self, agent: Agent[Any], context: SessionContext, glue: Glue) -> None:
        super().__init__(agent, context)
        self.glue = glue
        self.held = context.scratch / HELD_FILE

    async def outcome(self) -> StepOutcome:
        now = await super().outcome()
        if now.session_status != "awaiting_approval" and (call := self.glue.uncertain_call()) is not None:
            return StepOutcome("reconcile_required", "reconcile_required", uncertain_call=call)
        held = held_approvals(self.held, [p.call_id for p in now.pending])
        return dataclasses.replace(now, pending=tuple(p for p in now.pending if p.call_id not in held))

    async def decide(self, decisions: list[Decision]) -> StepOutcome:
        now = whole_turn(self.held, [p.call_id for p in (await super().outcome()).pending], decisions)
        return await super().decide(now) if now else await self.outcome()

    async def run(self, payload: str | list[Any] | RunState[Any, Any], **options: Any) -> StepOutcome:
        if isinstance(payload, RunState) and all(self._decision(payload, i) is not None for i in payload.get_interruptions()):
            for item in payload.get_interruptions():  # the turn is decided: the calls the glue paused with it run now
                if not gated(call_of(item).tool):
                    payload.approve(item)
        try:
            return await super().run(payload, run_config=one_call_at_a_time(), hooks=self.glue, **options)
        except Exception as exc:  # the SDK re-raises the glue's stop, as a UserError caused by it
            stop = _cause(exc)
            if stop is None:
                raise
            return StepOutcome("reconcile_required", "reconcile_required", uncertain_call=stop.call_id)

    async def resume(self) -> StepOutcome:
        items = await self.history.get_items()
        if not self.state_file.exists() and items and items[-1].get("role") == "assistant":  # the run ended in its answer
            return dataclasses.replace(await self.outcome(), ran=False)
        return await super().resume()

    async def reconcile(self, call_id: str, outcome: str) -> StepOutcome:
        self.glue.settling = (call_id, outcome)
        return await self.resume()

    async def _bound(self, new_input: bool) -> dict[str, Any]:
        return {"max_turns": await self.glue.max_turns(self.history, new_input)}

    def _checkpoint(self, state: RunState[Any, Any]) -> None:
        self.save_state(state)

    def _status(self, call_id: str, output: Any) -> str:
        return self.glue.statuses.get(call_id, "ok")

    def _decision(self, state: RunState[Any, Any], item: ToolApprovalItem) -> bool | None:  # type: ignore[override]
        """The human's decision on a high-risk call; a call the glue paused with its turn waits on nobody (False)."""
        return super()._decision(state, item) if gated(call_of(item).tool) else False

    def position(self, state: RunState[Any, Any]) -> dict[str, Any]:
        """The saved run's position, at the call of the glue's last intent in the turn when it ran (the engine's pending intent)."""
        at = super().position(state)
        calls = {c.call_id: c for c in map(call_of, state.get_interruptions())}
        stopped = self.glue.last_intent(list(calls))
        if at["position"] == "awaiting_approval" or stopped is None:
            return at
        call = calls[stopped]
        pending = {"call_id": call.call_id, "tool": call.tool, "args_hash": args_hash(call.args)}
        return {**at, "position": resume_position(self.glue.contract, stopped, "before_execute"), "pending_call": pending}


def _cause(exc: BaseException | None) -> ReconcileRequired | None:
    while exc is not None:
        if isinstance(exc, ReconcileRequired):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None
