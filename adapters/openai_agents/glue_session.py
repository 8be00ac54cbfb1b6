"""Contract glue around the session: what ``contract`` mode adds to ``AgentSession`` (all of it counted as glue).

- ``outcome``: a call the glue's records hold as uncertain puts the session in ``reconcile_required``;
- ``run``: a turn's function calls run one at a time, in the model's order (``one_call_at_a_time``); the glue's
  stop (``ReconcileRequired``, re-raised by the SDK) ends the step in ``reconcile_required`` with the call a
  reconcile may settle, and no call after it has started;
- ``_checkpoint``: the decided ``RunState`` is saved before the run it starts, so the decisions survive a
  crash inside that run (the SDK writes nothing while a run goes on);
- ``_bound``: ``max_turns`` from the saved conversation (``Glue.max_turns``);
- ``_status`` / ``_refined``: the glue's answer to a call, and a resume position refined by its record;
- ``reconcile``: the human's outcome handed to the glue, then a resume: the glue settles the call when the
  resumed run invokes it again.
"""

from __future__ import annotations

from typing import Any

from agents import Agent, RunConfig, RunState, ToolExecutionConfig

from adapters.column import SessionContext
from adapters.glue_blocks import resume_position
from harness.column_side.protocol import PendingCall, StepOutcome

from .glue import Glue, ReconcileRequired
from .session import AgentSession


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

    async def outcome(self) -> StepOutcome:
        if (call := self.glue.uncertain_call()) is not None:
            return StepOutcome("reconcile_required", "reconcile_required", uncertain_call=call)
        return await super().outcome()

    async def run(self, payload: str | list[Any] | RunState[Any, Any], **options: Any) -> StepOutcome:
        try:
            return await super().run(payload, run_config=one_call_at_a_time(), **options)
        except Exception as exc:  # the SDK re-raises the glue's stop, as a UserError caused by it
            stop = _cause(exc)
            if stop is None:
                raise
            return StepOutcome("reconcile_required", "reconcile_required", uncertain_call=stop.call_id)

    async def reconcile(self, call_id: str, outcome: str) -> StepOutcome:
        self.glue.settling = (call_id, outcome)
        return await self.resume()

    async def _bound(self, new_input: bool) -> dict[str, Any]:
        return {"max_turns": await self.glue.max_turns(self.history, new_input)}

    def _checkpoint(self, state: RunState[Any, Any]) -> None:
        self.save_state(state)

    def _status(self, call_id: str) -> str:
        return self.glue.statuses.get(call_id, "ok")

    def _refined(self, call: PendingCall, position: str) -> str:
        return resume_position(self.glue.contract, call.call_id, position) if position == "before_execute" else position


def _cause(exc: BaseException | None) -> ReconcileRequired | None:
    while exc is not None:
        if isinstance(exc, ReconcileRequired):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None
