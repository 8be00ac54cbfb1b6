"""A fast yes for valid arguments: a tool's closed schema compiled to plain Python checks.

jsonschema's validator is the engine's authority on arguments and the only source of its
error messages, but asking it costs about 20 µs a call even when the arguments are valid,
which is nearly every call. ``compile_fast_check`` turns a schema written only with the
keywords below into one function that answers *is this valid?* in about 1 µs; the engine
asks jsonschema only when that answer is no, for the messages. A schema with any other
keyword (``$ref``, ``pattern``, ``oneOf``, ``format``...) gets no fast check: jsonschema
decides alone. The checks mirror Draft 2020-12 with the engine's strict types exactly
(``tests/handwritten/test_fast_check.py`` holds them against jsonschema on generated arguments), so the
fast path never says yes where jsonschema would say no.

Supported: ``type`` (one or a list), ``properties``, ``required``, ``additionalProperties``
(a boolean), ``enum`` of strings, ``minLength`` / ``maxLength``, ``minimum`` / ``maximum`` /
``exclusiveMinimum`` / ``exclusiveMaximum``, ``items`` (a schema), ``minItems`` / ``maxItems``,
and the annotations ``description``, ``title``, ``default``, ``examples``.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]

_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment"})
_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "enum", "minLength", "maxLength", "minimum", "maximum",
     "exclusiveMinimum", "exclusiveMaximum", "items", "minItems", "maxItems"}
) | _ANNOTATIONS  # fmt: skip


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# The engine's strict types (handwritten.schema): no bool as a number, no 5.0 as an integer.
_TYPES: dict[str, Check] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


class Unsupported(Exception):
    """The schema uses something the fast check does not mirror: jsonschema decides alone."""


def compile_fast_check(schema: Mapping[str, Any]) -> Check | None:
    """The schema as one predicate, or None when it uses anything this module does not mirror exactly."""
    try:
        return _compile(schema)
    except Unsupported:
        return None


def _compile(schema: Any) -> Check:
    if schema is True:
        return lambda _value: True
    if schema is False:
        return lambda _value: False
    if not isinstance(schema, Mapping) or not set(schema) <= _KEYWORDS:
        raise Unsupported(schema)
    checks = [*_type_check(schema), *_string_checks(schema), *_number_checks(schema), *_object_checks(schema), *_array_checks(schema)]
    if "enum" in schema:
        values = schema["enum"]
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise Unsupported("enum")  # jsonschema's equality (1 == 1.0, True != 1) is mirrored for strings only
        allowed = frozenset(values)
        checks.append(lambda v: isinstance(v, str) and v in allowed)
    return _all_of(checks)


def _all_of(checks: list[Check]) -> Check:
    if len(checks) == 1:
        return checks[0]

    def check(value: Any) -> bool:
        for each in checks:  # a loop, not all() over a generator: this runs on every call the engine admits
            if not each(value):
                return False
        return True

    return check


def _type_check(schema: Mapping[str, Any]) -> list[Check]:
    if "type" not in schema:
        return []
    names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    if not names or not all(isinstance(n, str) and n in _TYPES for n in names):
        raise Unsupported("type")
    tests = [_TYPES[n] for n in names]
    if len(tests) == 1:
        return tests
    return [lambda v: any(test(v) for test in tests)]


def _bound(schema: Mapping[str, Any], keyword: str, kind: Check) -> Any:
    value = schema.get(keyword)
    if value is not None and not kind(value):
        raise Unsupported(keyword)
    return value


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _string_checks(schema: Mapping[str, Any]) -> list[Check]:
    low, high = _bound(schema, "minLength", _count), _bound(schema, "maxLength", _count)
    checks: list[Check] = []
    if low is not None:
        checks.append(lambda v: not isinstance(v, str) or len(v) >= low)
    if high is not None:
        checks.append(lambda v: not isinstance(v, str) or len(v) <= high)
    return checks


def _number_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    for keyword, holds in _BOUNDS.items():
        bound = _bound(schema, keyword, _is_number)
        if bound is not None:
            checks.append(functools.partial(_within, holds, bound))
    return checks


_BOUNDS: dict[str, Callable[[Any, Any], bool]] = {
    "minimum": operator.ge, "maximum": operator.le, "exclusiveMinimum": operator.gt, "exclusiveMaximum": operator.lt,
}  # fmt: skip


def _within(holds: Callable[[Any, Any], bool], bound: Any, value: Any) -> bool:
    return not _is_number(value) or holds(value, bound)


def _object_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        raise Unsupported("properties")
    compiled = {name: _compile(sub) for name, sub in properties.items()}
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise Unsupported("required")
    extra = schema.get("additionalProperties", True)
    if extra not in (True, False):
        raise Unsupported("additionalProperties")  # a schema for the extra fields: jsonschema decides
    if compiled or required or extra is False:
        checks.append(functools.partial(_fields, compiled, tuple(required), extra is False))
    return checks


def _fields(compiled: dict[str, Check], required: tuple[str, ...], closed: bool, value: Any) -> bool:
    """``properties``, ``required`` and a closed ``additionalProperties`` of an object, in one pass over its fields."""
    if not isinstance(value, dict):
        return True
    for name in required:
        if name not in value:
            return False
    for name, item in value.items():
        check = compiled.get(name)
        if check is None:
            if closed:
                return False
        elif not check(item):
            return False
    return True


def _array_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    if "items" in schema:
        item = _compile(schema["items"])
        checks.append(lambda v: not isinstance(v, list) or all(item(x) for x in v))
    low, high = _bound(schema, "minItems", _count), _bound(schema, "maxItems", _count)
    if low is not None:
        checks.append(lambda v: not isinstance(v, list) or len(v) >= low)
    if high is not None:
        checks.append(lambda v: not isinstance(v, list) or len(v) <= high)
    return checks
