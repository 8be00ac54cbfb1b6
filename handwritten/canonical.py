"""Canonical JSON: one spelling per value, so hashes and bindings are stable across processes.

A lone surrogate (a code point from U+D800 to U+DFFF, which is no Unicode character: ``json.loads`` makes one of
the text ``"\\ud800"``, and a model may send that) is written as its JSON escape, so the text is always valid
UTF-8 and reads back as the same string. Two adjacent surrogates that form a UTF-16 pair read back as the one
character they spell: JSON has no other spelling for them.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def canonical_json(value: Any) -> str:
    """Serialize ``value`` with sorted keys and no insignificant whitespace."""
    return escape_surrogates(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False))


def arguments_text(arguments: Any) -> str | None:
    """A call's arguments as a transcript holds them: a raw JSON text as it came, parsed arguments as their canonical
    JSON; None for parsed arguments that JSON cannot spell (NaN, nested past what the encoder recurses through)."""
    if isinstance(arguments, str):
        return arguments
    try:
        return canonical_json(arguments)
    except (ValueError, TypeError, RecursionError):
        return None


def escape_surrogates(text: str) -> str:
    """``text`` (JSON written with ``ensure_ascii=False``) with every lone surrogate written as its ``\\udXXX``
    escape. Outside JSON string literals there is none to escape, so the text stays JSON of the same value."""
    return text if text.isascii() else _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate: no UTF-8 encoder writes it."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def sha256_hex(text: str) -> str:
    """Hex SHA-256 of the UTF-8 encoding of ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def args_hash(args: Any) -> str:
    """The hash that binds approvals and idempotency records to a call's exact arguments."""
    return sha256_hex(canonical_json(args))
