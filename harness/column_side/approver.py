"""The human on the other side of an approval: issues tokens, and misuses them on purpose.

The harness owns the signing secret; the engine verifies with the same secret.
"""

from __future__ import annotations

import base64
import itertools
import json
from typing import Any

from handwritten.approvals import ApprovalAuthority
from handwritten.canonical import args_hash, canonical_json

APPROVAL_SECRET = b"harness-approval-secret: the human approver's signing key"
FOREIGN_SECRET = b"some other deployment's key"
CLOCK_START = 1_800_000_000.0  # a fixed epoch: evidence never depends on the wall clock
TOKEN_TTL_S = 300.0
MISUSES = ("other_args", "other_session", "expired", "forged", "reused", "other_call")


def parsed_args(arguments: Any) -> Any:
    """Script arguments may be raw JSON text; the human approves what they mean."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except json.JSONDecodeError:
            return arguments
    return arguments


class HumanApprover:
    """Issues tokens with deterministic ids (``tok-1``, ``tok-2``, ...) at the driver's clock."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self.last_used: str | None = None
        self.last_used_for: str | None = None  # the call id the last token handed over and not refused was issued for

    def _authority(self, now: float, secret: bytes = APPROVAL_SECRET) -> ApprovalAuthority:
        return ApprovalAuthority(secret, clock=lambda: now, new_token_id=lambda: f"tok-{next(self._ids)}")

    def approve(self, now: float, session_id: str, tool: str, arguments: Any, call_id: str) -> str:
        """A valid token for exactly this call."""
        return self._authority(now).issue(session_id, call_id, tool, args_hash(parsed_args(arguments)), TOKEN_TTL_S)

    def misuse(self, kind: str, now: float, session_id: str, tool: str, arguments: Any, call_id: str) -> str:
        """A token that is wrong in exactly one way (``call_id``: the call it is made for; for ``other_call``, that other
        call, whose tool and arguments are given)."""
        digest = args_hash(parsed_args(arguments))
        if kind == "other_args":
            return self._authority(now).issue(session_id, call_id, tool, args_hash({"changed": parsed_args(arguments)}), TOKEN_TTL_S)
        if kind == "other_session":
            return self._authority(now).issue(f"{session_id}-other", call_id, tool, digest, TOKEN_TTL_S)
        if kind == "expired":
            return self._authority(now - TOKEN_TTL_S - 1).issue(session_id, call_id, tool, digest, TOKEN_TTL_S)
        if kind == "forged":
            return _tamper(self._authority(now).issue(session_id, call_id, tool, digest, TOKEN_TTL_S))
        if kind == "reused":
            if self.last_used is None:
                raise ValueError("misuse 'reused' needs a token handed to the column earlier that it did not refuse")
            return self.last_used
        if kind == "other_call":  # a valid token, for the other call: the driver passes that call's tool and arguments
            return self._authority(now).issue(session_id, call_id, tool, digest, TOKEN_TTL_S)
        raise ValueError(f"unknown misuse {kind!r} (known: {', '.join(MISUSES)})")


def edited_args(arguments: Any) -> Any:
    """The call's arguments as a human editing them would leave them: the first argument (by name) changed, an integer
    by one, a string by a suffix; anything else wrapped. What a framework's approval-with-edit object carries."""
    parsed = parsed_args(arguments)
    if not isinstance(parsed, dict) or not parsed:
        return {"changed": parsed}
    key = sorted(parsed)[0]
    value = parsed[key]
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        edited: Any = {"changed": value}
    else:
        edited = value + 1 if isinstance(value, int) else f"{value} (edited)"
    return {**parsed, key: edited}


def _tamper(token: str) -> str:
    """Stretch the expiry inside the payload and keep the old signature."""
    body, _, signature = token.partition(".")
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    payload["expires_at"] += 10 * TOKEN_TTL_S
    forged = base64.urlsafe_b64encode(canonical_json(payload).encode()).decode().rstrip("=")
    return f"{forged}.{signature}"
