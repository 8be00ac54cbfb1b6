"""The contract's own answer to a question it would not have asked: the driver's implicit decisions.

A framework that pauses, in ``defaults``, on a call the contract runs or refuses without asking anyone (a
read-only or reversible call, an always-denied one) would otherwise leave the run parked there and nothing after
its first question measured. The driver answers such a pause as the contract decides the call: a read-only or
reversible call is approved, an always-denied one rejected with the engine's own refusal. A high-risk call is the
human's: it is never answered here. The base column (``adapters.column``) gives these decisions and the probes
give the same ones (``harness.column_side.probes.kit``).
"""

from __future__ import annotations

from handwritten.policy import Decision, Policy
from harness.fixture_tools import FIXTURE_TOOLS

_POLICY = Policy()


def contract_answer(tool: str) -> tuple[bool, str | None] | None:
    """``(approve, reason)`` for a call of ``tool`` the contract would not ask about (the reason is the refusal a
    rejection tells the model); None for a high-risk call, or a tool outside the fixture set (the human's)."""
    spec = FIXTURE_TOOLS.get(tool)
    decision = _POLICY.decide(tool, spec.risk) if spec else Decision.NEEDS_APPROVAL
    if decision in (Decision.RUN, Decision.RUN_IDEMPOTENT):
        return True, None
    if decision is Decision.DENY:
        return False, f"refused by policy: {tool} is never allowed"
    return None
