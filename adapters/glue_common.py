"""Contract glue the third-party columns share: framework-independent, on the engine's building blocks.

It counts as glue of every column that imports it (see harness/glue.py). ``contract`` is
a column's own glue state: anything with ``session_id`` and ``idempotency`` (the
engine's ``IdempotencyStore``).
"""

from __future__ import annotations

from typing import Any, Protocol

from handwritten.approvals import Approval, ApprovalAuthority, Refusal
from handwritten.canonical import args_hash
from handwritten.idempotency import IdempotencyStore


class Records(Protocol):
    session_id: str
    idempotency: IdempotencyStore


def verify_approval(contract: Records, authority: ApprovalAuthority, call: dict[str, Any], token: str) -> str | None:
    """The engine's refusal reason for this token and pending call (``tool``, ``args``), or None when it
    approves. Single use is the column's own record, claimed before the approval reaches the framework."""
    verdict = authority.verify(token, contract.session_id, call["tool"], args_hash(call["args"]))
    if isinstance(verdict, Approval) and not contract.idempotency.claim_once(f"approval-token/{verdict.token_id}"):
        verdict = Refusal.REUSED
    return verdict.value if isinstance(verdict, Refusal) else None


def first_delivery(contract: Records, event_id: str) -> bool:
    """An inbound event id is applied once; a second delivery is ignored."""
    return contract.idempotency.claim_once(f"event/{contract.session_id}/{event_id}")
