"""Contract glue for the AgentScope session: how a reply the glue stopped ends, where a resume continues, reconcile.

All of it is contract-only (the file name makes the evidence count it). ``ContractSession`` is the
``defaults`` session plus:

- the stops the glue raises from its middleware (``ReconcileRequired``, ``StepBound``) become the step's
  status (``reconcile_required`` with the uncertain call, ``stopped_max_steps``); AgentScope raises
  them out of its concurrent tool batch as an ``ExceptionGroup``;
- a resume's position refined by the glue's records: the call of the last open intent, and whether its
  executor ran (``after_execute``) or may have (``reconcile``);
- a resume of a reply that ended (``completed``, ``stopped_max_steps``) starts no reply: the engine's resume has
  nothing to continue, where AgentScope's ``reply(None)`` starts a new reply from the saved context and asks the model
  for another turn (its step bound, counting the ended reply's turns, would stop it at once); the step's status
  records the reply it ended (``reply_id``), so a reply killed after it is still continued;
- a turn is approved as a whole (``whole_turn``): an approval is held until no high-risk call of the turn is
  left undecided, then every held approval goes in one ``UserConfirmResultEvent`` with the last decision and
  the confirmations of the calls the glue made ask with their turn (``ContractMiddleware``); a rejection goes
  at once (AgentScope answers it, and runs nothing while calls still ask); only the human's calls, less the
  held ones, are pending;
- ``before_kill``: right before a kill, the results AgentScope recorded in this reply that its stream had not
  handed over yet (a concurrent batch's events wait in a queue until the whole batch ends) are traced: the glue
  saved them with the state before the killed call ran, so the model will see them;
- ``reconcile``: the human's outcome is handed to the executor, and ``reply(None)`` makes AgentScope
  dispatch the open call again, where ``run_once`` settles it (``confirmed``: its result without running;
  ``not_executed``: it runs).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from agentscope.message import ToolCallBlock

from adapters.glue_blocks import Contract, held_approvals, resume_position, whole_turn
from adapters.held_decisions import HELD_FILE
from harness.column_side.protocol import Decision, StepOutcome
from harness.scenarios import Scenario

from .agent import AGENT_NAME
from .glue import Executor, ReconcileRequired, StepBound, high_risk
from .session import RESULT_STATUS, AgentSession, open_calls
from .tools import Emit


class ContractSession(AgentSession):
    """The session with the contract glue's state (records, intents) and executor."""

    def __init__(self, agent: Any, scratch: Path, scenario: Scenario, emit: Emit, after_save: Any, contract: Contract, executor: Executor) -> None:
        super().__init__(agent, scratch, scenario, emit, after_save)
        self.contract = contract
        self.executor = executor
        self.held = scratch / HELD_FILE

    async def _stream(self, inputs: Any) -> dict[str, Any]:
        return {**await self._stopped(inputs), "reply_id": self.state.reply_id}  # the reply that ended so (``resume``)

    async def _stopped(self, inputs: Any) -> dict[str, Any]:
        stopped: dict[str, Any] = {"status": "stopped_max_steps"}
        try:
            return await super()._stream(inputs)
        except* ReconcileRequired as uncertain:
            call_ids = [e.call_id for e in uncertain.exceptions if isinstance(e, ReconcileRequired)]
            stopped = {"status": "reconcile_required", "uncertain_call": call_ids[0]}
        except* StepBound:
            pass
        return stopped

    async def resume(self) -> StepOutcome:
        """A saved reply that ended (answered, or stopped at the step bound) has nothing to continue: no reply starts, as
        the engine's resume of a completed or bounded run. The saved status says so only while the state is still that
        reply's with no call open: a reply killed later saved its own state (a new ``reply_id``), and one that paused or was
        killed inside a call has a call open; both are continued."""
        ended = self.saved_status()
        if ended["status"] in ("completed", "stopped_max_steps") and ended.get("reply_id") == self.state.reply_id and not open_calls(self.state):
            return dataclasses.replace(self.outcome(), ran=False)
        return await super().resume()

    def _refine(self, calls: list[ToolCallBlock], position: str) -> tuple[ToolCallBlock, str]:
        intended = calls[0]  # the glue's last intent still open, else the first open call
        if self.contract.intents.exists():
            by_id = {c.id: c for c in calls}
            for line in self.contract.intents.read_text(encoding="utf-8").splitlines():
                intended = by_id.get(json.loads(line)["call_id"], intended)
        return intended, resume_position(self.contract, intended.id, position) if position == "before_execute" else position

    def outcome(self) -> StepOutcome:
        """The uncertain call a reconcile step may settle, with the session's status; pending, the human's calls not held."""
        now = super().outcome()
        held = held_approvals(self.held, [p.call_id for p in now.pending])
        asking = tuple(p for p in now.pending if high_risk(p.tool) and p.call_id not in held)
        return dataclasses.replace(now, pending=asking, uncertain_call=self.saved_status().get("uncertain_call"))

    async def decide(self, decisions: list[Decision]) -> StepOutcome:
        waiting = [p.call_id for p in super().outcome().pending if high_risk(p.tool)]
        now = whole_turn(self.held, waiting, decisions)
        if not now:
            return self.outcome()
        if set(waiting) <= {d.call_id for d in now}:  # the turn is decided: the calls asking with it run with it
            now += [Decision(c.id, True) for c in self.state.get_awaiting_tool_calls(AGENT_NAME) if c.id not in waiting]
        return await super().decide(now)

    async def reconcile(self, call_id: str, outcome: str) -> StepOutcome:
        self.executor.settlements[call_id] = outcome
        return await self.run(None)

    def before_kill(self, call_id: str | None) -> None:
        for block in self.state.context[-1].get_content_blocks("tool_result") if self.state.context else []:
            if block.id not in self.traced:
                text = block.output if isinstance(block.output, str) else "".join(getattr(b, "text", "") for b in block.output)
                status = block.metadata.get("status") or RESULT_STATUS[str(block.state)]
                self.emit({"kind": "tool_result", "call_id": block.id, "status": status, "content": text})
