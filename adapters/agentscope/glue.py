"""Contract glue for AgentScope 2.x: the shared glue blocks (``adapters/glue_blocks.py``) hooked into the ``Agent``.

All of it is contract-only (the file name makes the evidence count it). The ``Agent`` still
calls the model, parses and validates tool input, asks through its permission system
(``RequireUserConfirmEvent``), runs the tools and keeps its ``AgentState``; the glue adds:

- ``ContractMiddleware.on_check_permission``: ``admit`` (strict schema on the RAW argument
  JSON, before AgentScope's type repair can matter, then policy) as AgentScope's own permission
  decision: DENY (the agent answers the call itself), ASK, or ALLOW. A turn is approved as a whole:
  a call ``admit`` lets run asks too while a high-risk call of its turn waits for the human (AgentScope
  runs an allowed call of a batch beside the calls that ask), and the session confirms it with the
  turn's last decision (``glue_session``).
- ``ContractMiddleware.on_reasoning``: the step bound, counted by ``turns_left`` from the saved
  conversation as the model would receive it, so it holds across a resume (``ReActConfig.max_iters``
  counts per reply); and a save of the ``AgentState`` before and after every model turn.
- ``ContractMiddleware.on_acting``: a save before the tool runs (an approval survives a kill in
  the executor), and the stop of an uncertain call: AgentScope's own interrupt closes every
  unfinished call with an "interrupted" result, so the glue raises ``ReconcileRequired`` from the
  hook before the agent records any result; the saved state keeps the call open. AgentScope runs
  the rest of the batch all the same (its tasks are gathered with ``return_exceptions=True``), so
  every later call of the turn raises it too before it runs: they wait, open, for the reconcile.
- ``OPTIONS``: no runtime-state hint (the current time) injected into the context.
- ``Executor``: the world the tool functions call, with ``run_once`` around each body (inside the tool function,
  where a tool's exception is still visible: the toolkit turns every exception into an error result), settled by the
  reconcile step's answer.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable
from typing import Any

from agentscope.agent import InjectionConfig
from agentscope.message import ToolCallState, ToolResultState
from agentscope.middleware import MiddlewareBase
from agentscope.permission import PermissionBehavior, PermissionDecision
from agentscope.tool import ToolResponse

from adapters.glue_blocks import Admitted, Contract, Failed, Ok, Reconciled, Rejected, Replay, RunResult, Uncertain, admit, run_once, turns_left
from handwritten.canonical import canonical_json
from handwritten.tools import RiskClass
from harness.fixture_tools import FIXTURE_TOOLS

from .tools import World

OPTIONS: dict[str, Any] = {"injection_config": InjectionConfig(inject_runtime_state=False)}  # the model sees only script, input, results
_STATUS = {Ok: "ok", Replay: "replayed", Reconciled: "reconciled", Failed: "error", Uncertain: "uncertain"}


def high_risk(tool: str) -> bool:
    """Whether the contract holds a call of ``tool`` for a human approval (its risk class, whatever the arguments)."""
    return FIXTURE_TOOLS[tool].risk is RiskClass.HIGH_RISK


class ReconcileRequired(Exception):
    """A call's outcome is unknown: the reply stops until an explicit reconcile settles ``call_id``."""

    def __init__(self, call_id: str) -> None:
        super().__init__(f"the outcome of {call_id} is unknown")
        self.call_id = call_id


class StepBound(Exception):
    """The scenario's ``max_steps`` model turns since the last user input are spent."""


class Executor:
    """The fixture world as the tool functions see it: each body under ``run_once``; ``settlements`` holds the
    reconcile step's answer per call id, ``results`` each call's latest result for ``on_acting``."""

    def __init__(self, contract: Contract, world: World) -> None:
        self.contract = contract
        self.world = world
        self.settlements: dict[str, str] = {}
        self.results: dict[str, RunResult] = {}

    def call(self, tool: str, call_id: str, args: dict[str, Any]) -> Any:
        result = run_once(self.contract, tool, call_id, args, lambda: self.world.call(tool, call_id, args), self.settlements.get)
        self.results[call_id] = result
        match result:
            case Ok(output=output) | Reconciled(output=output):
                return output
            case Replay(output=stored):
                return json.loads(stored)
            case Failed(error=error):
                return {"error": error}
        return {"error": "outcome unknown: reconcile required"}


class ContractMiddleware(MiddlewareBase):
    """Schema and policy as the permission decision; the step bound; saves around model turns and tools."""

    def __init__(self, contract: Contract, executor: Executor, save_state: Callable[[Any], None]) -> None:
        self.contract = contract
        self.executor = executor
        self.save_state = save_state  # writes an AgentState to the session's file
        self.uncertain: str | None = None  # the call of this reply whose outcome is unknown: nothing after it runs

    async def on_check_permission(self, agent: Any, input_kwargs: dict, next_handler: Callable[..., Any]) -> PermissionDecision:
        call = input_kwargs["tool_call"]
        verdict = admit(self.contract, call.name, call.id, call.input)
        if isinstance(verdict, Rejected):
            return PermissionDecision(behavior=PermissionBehavior.DENY, message=canonical_json(verdict.output))
        if verdict.needs_approval and call.state != ToolCallState.ALLOWED:
            return PermissionDecision(behavior=PermissionBehavior.ASK, message=f"{call.name} needs a human approval")
        if call.state != ToolCallState.ALLOWED and self._turn_waits(agent):
            return PermissionDecision(behavior=PermissionBehavior.ASK, message="held with its turn, which waits for a human approval")
        return PermissionDecision(behavior=PermissionBehavior.ALLOW, message="allowed by the contract's policy")

    def _turn_waits(self, agent: Any) -> bool:
        """Whether a high-risk call of the agent's last turn is still undecided (asking, or not asked yet)."""
        calls = agent.state.context[-1].get_content_blocks("tool_call")
        verdicts = [admit(self.contract, c.name, c.id, c.input, announce=False) for c in calls if c.state in (ToolCallState.PENDING, ToolCallState.ASKING)]
        return any(isinstance(v, Admitted) and v.needs_approval for v in verdicts)

    async def on_reasoning(self, agent: Any, input_kwargs: dict, next_handler: Callable[..., AsyncGenerator]) -> AsyncGenerator:
        self.save_state(agent.state)  # every tool result of the turn is in the context now
        conversation = await agent.model.formatter.format(agent.state.context)  # one assistant message per model turn
        if turns_left(self.contract, [m["role"] for m in conversation]) == 0:
            raise StepBound(f"max_steps {self.contract.max_steps} reached")
        async for item in next_handler(**input_kwargs):
            yield item
        self.save_state(agent.state)  # the model's reply (its tool calls) survives a kill in the tools

    async def on_acting(self, agent: Any, input_kwargs: dict, next_handler: Callable[..., AsyncGenerator]) -> AsyncGenerator:
        call = input_kwargs["tool_call"]
        if self.uncertain is not None:  # a call before it in the turn has an unknown outcome
            raise ReconcileRequired(self.uncertain)
        self.save_state(agent.state)  # an approval given in this step survives a kill in the executor
        async for item in next_handler(**input_kwargs):
            if isinstance(item, ToolResponse):
                result = self.executor.results.pop(call.id, None)
                if isinstance(result, Uncertain):  # stop before the agent records any result for the call
                    self.uncertain = call.id
                    raise ReconcileRequired(call.id)
                status = _STATUS[type(result)] if result else ("ok" if item.state == ToolResultState.SUCCESS else "error")
                item.metadata = {**item.metadata, "status": status}
            yield item
