"""One engine rig over the fixture world, the scripted model and the human approver (the fixtures are in conftest.py).

No fakes: the tools are the fixture world's (side effects land in its ledger), the model is
``harness.column_side.scripted_model.ScriptedModel`` and tokens come from ``harness.column_side.approver.HumanApprover``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from handwritten.approvals import ApprovalAuthority
from handwritten.checkpoint import MemoryCheckpointStore, SqliteCheckpointStore
from handwritten.engine import Engine, Hooks
from handwritten.events import Event
from handwritten.idempotency import MemoryIdempotencyStore, SqliteIdempotencyStore
from handwritten.policy import Policy
from handwritten.tools import ToolRegistry
from harness.column_side.approver import APPROVAL_SECRET, CLOCK_START, HumanApprover
from harness.column_side.fixtures.faults import FaultPlan
from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.scripted_model import ScriptedModel
from harness.ledger import ledger_counts

SESSION = "sess-1"
USER_INPUT = "Please help."


class SimulatedCrash(Exception):
    """Raised from ``Hooks.after_checkpoint``: the process 'dies' between the intent checkpoint and the executor."""


def crash_after_checkpoint(call: Any) -> None:
    raise SimulatedCrash(call.call_id)


@dataclass
class Clock:
    """The engine's clock; tests move it explicitly."""

    now: float = CLOCK_START

    def __call__(self) -> float:
        return self.now


def _never_issue() -> str:
    raise AssertionError("the engine verifies approval tokens; only the human approver issues them")


@dataclass
class Rig:
    """One engine over the fixture world, with everything a test wants to look at."""

    tmp_path: Path
    script: list[dict[str, Any]]
    tools: list[str]
    world: FixtureWorld
    store_kind: str
    max_steps: int
    policy: Policy | None
    hooks: Hooks | None
    clock: Clock = field(default_factory=Clock)
    approver: HumanApprover = field(default_factory=HumanApprover)
    trace: list[Event] = field(default_factory=list)
    engine: Engine = field(init=False)
    checkpoints: Any = field(init=False)
    idempotency: Any = field(init=False)
    _opened: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.restart()

    @property
    def model_log(self) -> Path:
        return self.tmp_path / "model_log.jsonl"

    @property
    def engine_db(self) -> str:
        return str(self.tmp_path / "engine.sqlite")

    def restart(self, hooks: Hooks | None = None) -> Engine:
        """A fresh engine (and, for SQLite, fresh store connections): what a new process would build."""
        if self.store_kind == "sqlite":
            self.checkpoints = SqliteCheckpointStore(self.engine_db)
            self.idempotency = SqliteIdempotencyStore(self.engine_db)
            self._opened += [self.checkpoints, self.idempotency]
        elif not isinstance(getattr(self, "checkpoints", None), MemoryCheckpointStore):
            self.checkpoints = MemoryCheckpointStore()
            self.idempotency = MemoryIdempotencyStore()
        model = ScriptedModel(
            self.script,
            user_inputs=[USER_INPUT],
            system_prompt=None,
            log_path=self.model_log,
            faults=FaultPlan([], None, may_kill=False),
        )
        self.engine = Engine(
            model=model,
            registry=ToolRegistry(self.world.tool_specs(self.tools)),
            checkpoints=self.checkpoints,
            idempotency=self.idempotency,
            approvals=ApprovalAuthority(APPROVAL_SECRET, clock=self.clock, new_token_id=_never_issue),
            policy=self.policy,
            trace=self.trace.append,
            hooks=hooks if hooks is not None else self.hooks,
            max_steps=self.max_steps,
        )
        return self.engine

    def close(self) -> None:
        for store in self._opened:
            store.close()
        self._opened.clear()

    def ledger(self) -> dict[str, dict[str, Any]]:
        return ledger_counts(str(self.world.path))

    def model_turns_asked(self) -> list[int]:
        """The turn index of every request the scripted model received, in order."""
        if not self.model_log.exists():
            return []
        return [json.loads(line)["turn"] for line in self.model_log.read_text(encoding="utf-8").splitlines() if line]

    def token(self, tool: str, arguments: Any, call_id: str = "c1") -> str:
        return self.approver.approve(self.clock.now, SESSION, tool, arguments, call_id=call_id)

    def misuse(self, kind: str, tool: str, arguments: Any, call_id: str = "c1") -> str:
        return self.approver.misuse(kind, self.clock.now, SESSION, tool, arguments, call_id=call_id)


MakeRig = Callable[..., Rig]
