"""Contract glue for the AgentScope session: how a reply the glue stopped ends, where a resume continues, reconcile.

All of it is contract-only (the file name makes the evidence count it). ``ContractSession`` is the
``defaults`` session plus:

- the stops the glue raises from its middleware (``ReconcileRequired``, ``StepBound``) become the step's
  status (``reconcile_required`` with the uncertain call, ``stopped_max_steps``); AgentScope raises
  them out of its concurrent tool batch as an ``ExceptionGroup``;
- a resume's position refined by the glue's records: the call of the last open intent, and whether its
  executor ran (``after_execute``) or may have (``reconcile``);
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

from adapters.glue_blocks import Contract, resume_position
from harness.column_side.protocol import StepOutcome
from harness.scenarios import Scenario

from .glue import Executor, ReconcileRequired, StepBound
from .session import AgentSession
from .tools import Emit


class ContractSession(AgentSession):
    """The session with the contract glue's state (records, intents) and executor."""

    def __init__(self, agent: Any, scratch: Path, scenario: Scenario, emit: Emit, contract: Contract, executor: Executor) -> None:
        super().__init__(agent, scratch, scenario, emit)
        self.contract = contract
        self.executor = executor

    async def _stream(self, inputs: Any) -> dict[str, Any]:
        stopped: dict[str, Any] = {"status": "stopped_max_steps"}
        try:
            return await super()._stream(inputs)
        except* ReconcileRequired as uncertain:
            call_ids = [e.call_id for e in uncertain.exceptions if isinstance(e, ReconcileRequired)]
            stopped = {"status": "reconcile_required", "uncertain_call": call_ids[0]}
        except* StepBound:
            pass
        return stopped

    def _refine(self, calls: list[ToolCallBlock], position: str) -> tuple[ToolCallBlock, str]:
        intended = calls[0]  # the glue's last intent still open, else the first open call
        if self.contract.intents.exists():
            by_id = {c.id: c for c in calls}
            for line in self.contract.intents.read_text(encoding="utf-8").splitlines():
                intended = by_id.get(json.loads(line)["call_id"], intended)
        return intended, resume_position(self.contract, intended.id, position) if position == "before_execute" else position

    def outcome(self) -> StepOutcome:
        """The uncertain call a reconcile step may settle, with the session's status."""
        return dataclasses.replace(super().outcome(), uncertain_call=self.saved_status().get("uncertain_call"))

    async def reconcile(self, call_id: str, outcome: str) -> StepOutcome:
        self.executor.settlements[call_id] = outcome
        return await self.run(None)
