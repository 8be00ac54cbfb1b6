"""The tagged outcomes of one engine loop step, matched exhaustively in ``Engine._advance``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .checkpoint import AgentState

StopStatus = Literal["reconcile_required", "stopped_max_steps", "model_unavailable"]


@dataclass(frozen=True)
class RunAgain:
    """The state moved on and the loop steps again."""

    state: AgentState


@dataclass(frozen=True)
class AwaitApproval:
    """A high-risk call of the turn waits for a human: the run pauses."""

    state: AgentState


@dataclass(frozen=True)
class Final:
    """The model answered without calls: the run is completed."""

    state: AgentState


@dataclass(frozen=True)
class Stopped:
    """The run stopped short of an answer; ``status`` says why (the state carries the same status)."""

    state: AgentState
    status: StopStatus


Step = RunAgain | AwaitApproval | Final | Stopped
