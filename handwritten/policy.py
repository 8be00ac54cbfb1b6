"""Policy: what each risk class allows, decided before any executor runs."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum

from .tools import RiskClass


class Decision(str, Enum):
    """The policy's answer for one admitted call."""

    RUN = "run"  # read-only: runs
    RUN_IDEMPOTENT = "run_idempotent"  # reversible write: runs under an idempotency key
    NEEDS_APPROVAL = "needs_approval"  # high-risk: waits for a bound, single-use approval
    DENY = "deny"  # always denied, whatever anyone approves


_BY_RISK = {
    RiskClass.READ_ONLY: Decision.RUN,
    RiskClass.REVERSIBLE_WRITE: Decision.RUN_IDEMPOTENT,
    RiskClass.HIGH_RISK: Decision.NEEDS_APPROVAL,
    RiskClass.ALWAYS_DENY: Decision.DENY,
}

_STRICTNESS = {risk: rank for rank, risk in enumerate(RiskClass)}


class Policy:
    """Maps a tool to its decision from its risk class; ``overrides`` can only make a tool stricter."""

    def __init__(self, overrides: Mapping[str, RiskClass] | None = None) -> None:
        self._overrides = dict(overrides or {})

    def decide(self, tool: str, risk: RiskClass) -> Decision:
        effective = self._overrides.get(tool, risk)
        if _STRICTNESS[effective] < _STRICTNESS[risk]:
            effective = risk  # an override never loosens the declared class
        return _BY_RISK[effective]

    @staticmethod
    def needs_idempotency(decision: Decision) -> bool:
        """Every call that may change the world runs under an idempotency key."""
        return decision in (Decision.RUN_IDEMPOTENT, Decision.NEEDS_APPROVAL)
