"""Canonical JSON: one spelling per value, so hashes and bindings are stable across processes."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> str:
    """Serialize ``value`` with sorted keys and no insignificant whitespace."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256_hex(text: str) -> str:
    """Hex SHA-256 of the UTF-8 encoding of ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def args_hash(args: Any) -> str:
    """The hash that binds approvals and idempotency records to a call's exact arguments."""
    return sha256_hex(canonical_json(args))
