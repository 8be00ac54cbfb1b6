"""Approval tokens: HMAC-signed, bound to (session, tool, call id, canonical args hash, expiry), used once.

Approval is data. A human approver (whoever holds the secret) issues a token for one
exact call; the engine verifies it against the pending call and refuses every misuse
with a distinct reason. Single use is enforced by the engine's own records, not here.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .canonical import canonical_json

Clock = Callable[[], float]


class Refusal(str, Enum):
    """Why a token was refused. Each misuse has its own reason."""

    MALFORMED = "malformed"
    FORGED = "forged"  # signature does not match: tampered or signed with another secret
    OTHER_SESSION = "other_session"
    OTHER_TOOL = "other_tool"
    OTHER_ARGS = "other_args"
    OTHER_CALL = "other_call"  # made for another call with the same tool and arguments
    EXPIRED = "expired"
    REUSED = "reused"
    NOT_PENDING = "not_pending"  # no pending call with that id


def token_key(token_id: str) -> str:
    """The key under which a used token is recorded (claimed once) in an idempotency store."""
    return f"approval-token/{token_id}"


def spent_in(records: Any) -> Callable[[str], bool]:
    """``verify``'s ``spent`` for an idempotency store (anything with ``get(key)``): a token id it holds is used."""
    return lambda token_id: records.get(token_key(token_id)) is not None


@dataclass(frozen=True)
class Approval:
    """A verified approval for one exact call."""

    token_id: str
    session_id: str
    tool: str
    call_id: str
    args_hash: str
    expires_at: float


class ApprovalAuthority:
    """Issues and verifies tokens with a secret the harness (the human's side) owns."""

    def __init__(self, secret: bytes, clock: Clock, new_token_id: Callable[[], str]) -> None:
        if not secret:
            raise ValueError("approval secret must not be empty")
        self._secret = secret
        self._clock = clock
        self._new_token_id = new_token_id

    def issue(self, session_id: str, call_id: str, tool: str, args_hash: str, ttl_seconds: float) -> str:
        """A token approving the call ``call_id`` of ``tool`` with exactly these args in this session until now + ttl."""
        payload = {
            "args_hash": args_hash,
            "call_id": call_id,
            "expires_at": self._clock() + ttl_seconds,
            "session_id": session_id,
            "token_id": self._new_token_id(),
            "tool": tool,
        }
        body = base64.urlsafe_b64encode(canonical_json(payload).encode()).decode().rstrip("=")
        return f"{body}.{self._sign(body)}"

    def verify(self, token: str, session_id: str, call_id: str, tool: str, args_hash: str, spent: Callable[[str], bool] = lambda _: False) -> Approval | Refusal:
        """Check signature and binding. Single use is the caller's: it owns the used-token records, claims the token
        once this returns an approval, and says through ``spent`` which token ids are used already (a spent token is
        refused ``reused`` before it is compared with the call it is shown for)."""
        body, _, signature = token.partition(".")
        if not body or not token.isascii() or len(signature) != 64 or not all(c in "0123456789abcdef" for c in signature):  # base64url.hex
            return Refusal.MALFORMED
        if not hmac.compare_digest(signature.encode("utf-8"), self._sign(body).encode("utf-8")):
            return Refusal.FORGED
        try:
            payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
            approval = Approval(
                token_id=str(payload["token_id"]),
                session_id=str(payload["session_id"]),
                tool=str(payload["tool"]),
                call_id=str(payload["call_id"]),
                args_hash=str(payload["args_hash"]),
                expires_at=float(payload["expires_at"]),
            )
        except (binascii.Error, ValueError, KeyError, TypeError):
            return Refusal.MALFORMED
        if approval.session_id != session_id:
            return Refusal.OTHER_SESSION
        if approval.tool != tool:
            return Refusal.OTHER_TOOL
        if approval.args_hash != args_hash:
            return Refusal.OTHER_ARGS
        if self._clock() >= approval.expires_at:
            return Refusal.EXPIRED
        if spent(approval.token_id):
            return Refusal.REUSED
        if approval.call_id != call_id:  # the same action, approved for another call: an approval is of one call
            return Refusal.OTHER_CALL
        return approval

    def _sign(self, body: str) -> str:
        return hmac.new(self._secret, body.encode(), hashlib.sha256).hexdigest()
