"""One-line messages for bad scenario files.

jsonschema's own messages start with the offending value's ``repr``, which for a wrong-typed
block is the whole block; a byte that is not UTF-8 surfaces as a traceback. These helpers
turn both into a short line a user can act on: what is wrong, where, and what was expected.
"""

from __future__ import annotations

import json
from typing import Any

from jsonschema.exceptions import ValidationError

_SHORT = 40  # characters of a value quoted in a message; longer values are cut with an ellipsis
_TYPES = {"object": "an object", "array": "an array", "string": "a string", "integer": "an integer",
          "number": "a number", "boolean": "a boolean", "null": "null"}  # fmt: skip


def json_type(value: Any) -> str:
    """The JSON type of a parsed value, with its article ("an array", "a string")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    kinds = {dict: "object", list: "array", str: "string", float: "number"}
    return _TYPES[kinds.get(type(value), "object")]


def short(value: Any) -> str:
    """A value quoted for a message: its JSON text when short, else its type and a cut prefix."""
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= _SHORT:
        return text
    return f"{json_type(value)} ({text[:_SHORT]}…)"


def locate(error: ValidationError) -> tuple[str, str]:
    """The field a schema error is about (a path like ``driver/1/call_id``) and what is wrong with it.
    A missing or unknown property is named itself, not the object that holds it."""
    path = [str(p) for p in error.absolute_path]
    rule: Any = error.validator_value  # typed as possibly unset: always set on an error from iter_errors
    schema: Any = error.schema
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [r for r in rule if r not in error.instance]
        if missing:
            return "/".join(path + [missing[0]]), "required, but missing" + _because(error)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = schema.get("properties", {})
        unknown = sorted(k for k in error.instance if k not in known)
        if unknown:
            return "/".join(path + [unknown[0]]), f"unknown field (known here: {', '.join(known)})"
    return "/".join(path) or "(top level)", describe(error)


def _because(error: ValidationError) -> str:
    """For a rule that applies to some driver actions or fault points only: which one it applied to."""
    if "then" not in error.schema_path and "else" not in error.schema_path:
        return ""
    for key in ("action", "point"):
        if isinstance(error.instance, dict) and key in error.instance:
            return f" (for {key} {json.dumps(error.instance[key])})"
    return ""


def describe(error: ValidationError) -> str:
    """What a schema error says, in one line that never quotes a whole block."""
    value: Any = error.instance
    rule: Any = error.validator_value
    if error.validator == "type":
        wanted = [rule] if isinstance(rule, str) else list(rule)
        return f"must be {' or '.join(_TYPES[t] for t in wanted)}, not {json_type(value)}"
    if error.validator == "enum":
        return f"{short(value)} is not one of: {', '.join(json.dumps(v) for v in rule)}"
    if error.validator == "const":
        return f"must be {json.dumps(rule)}, not {short(value)}"
    if error.validator == "not" and isinstance(rule, dict) and "required" in rule:
        return f"must not have {', '.join(repr(r) for r in rule['required'])}{_because(error) or ' here'}"
    if error.validator in ("anyOf", "oneOf"):
        alternatives = [a for a in rule if isinstance(a, dict)]
        if alternatives and all(set(a) == {"required"} for a in alternatives):
            return f"needs at least one of: {', '.join(repr(r) for a in alternatives for r in a['required'])}"
        return f"{short(value)} matches none of the allowed forms (see scenarios/scenario.schema.json)"
    message = error.message
    quoted = repr(value)
    if message.startswith(quoted):  # jsonschema's messages open with the value's repr: shorten it
        message = short(value) + message[len(quoted):]
    return message.replace("\n", " ")


def not_utf8(raw: bytes, exc: UnicodeDecodeError) -> str:
    """Where a file stops being UTF-8: the line and column of the first bad byte and, when the rest
    parses as JSON, the field whose text holds it."""
    start = exc.start
    line = raw.count(b"\n", 0, start) + 1
    column = start - (raw.rfind(b"\n", 0, start) + 1) + 1
    where = f"byte 0x{raw[start]:02x} at line {line} column {column}"
    field = _field_with_bad_bytes(raw)
    prefix = f"field '{field}': " if field is not None else ""
    return f"{prefix}not UTF-8 text ({where}); save the file as UTF-8"


def _field_with_bad_bytes(raw: bytes) -> str | None:
    """The path of the first key or string value holding an undecodable byte (None when the
    file does not parse as JSON even with the bad bytes escaped)."""
    try:
        data = json.loads(raw.decode("utf-8", errors="surrogateescape"))
    except ValueError:
        return None

    def bad(text: str) -> bool:
        return any("\udc80" <= ch <= "\udcff" for ch in text)

    def walk(value: Any, path: list[str]) -> list[str] | None:
        if isinstance(value, str):
            return path if bad(value) else None
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, item in items:
            if isinstance(key, str) and bad(key):
                return path + [key.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")]
            found = walk(item, path + [str(key)])
            if found is not None:
                return found
        return None

    found = walk(data, [])
    if found is None:
        return None
    return "/".join(found) or "(top level)"
