"""Strict argument validation with jsonschema (Draft 2020-12).

Strict means: no type coercion ("5" is not an integer, 5.0 is not an integer, ``true``
is not a number), unknown fields rejected even where a schema forgot
``additionalProperties: false``, missing required fields rejected. Validators are
compiled once per tool: compiling costs far more than checking.

Whatever a model sends is an answer, never a crash: arguments (or their JSON text) nested deeper than
``MAX_NESTING`` are refused before anything walks them (a text is measured before it is parsed: Python's parser
dies of recursion far above the limit), and so is a string or key holding a lone surrogate (the text
``"\\ud800"`` parses to one; it is no Unicode character, so no tool should get it and no UTF-8 writer could write
it back).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator, validators

from .canonical import canonical_json, has_surrogate
from .fast_check import compile_fast_check

MAX_NESTING = 64  # arrays and objects inside one another in a call's arguments: deeper is refused before any walk
TOO_DEEP = f"(arguments): nested deeper than {MAX_NESTING} levels of arrays and objects"

_TYPES = Draft202012Validator.TYPE_CHECKER.redefine_many(
    {
        # JSON Schema counts 5.0 as an integer and Python counts True as one; neither is strict.
        "integer": lambda _checker, value: isinstance(value, int) and not isinstance(value, bool),
        "number": lambda _checker, value: isinstance(value, (int, float)) and not isinstance(value, bool),
    }
)
_StrictValidator = validators.extend(Draft202012Validator, type_checker=_TYPES)  # type: ignore[no-untyped-call]  # unannotated in its stubs


# Keywords whose values are data, not subschemas: closing "objects" inside them would change the data.
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})


def close_objects(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Return a copy where every object schema (nullable ones included) without
    ``additionalProperties`` rejects unknown fields."""
    closed = copy.deepcopy(dict(schema))

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            types = node.get("type")
            is_object = types == "object" or (isinstance(types, list) and "object" in types)
            if is_object and "additionalProperties" not in node:
                node["additionalProperties"] = False
            for key, value in node.items():
                if key not in _DATA_KEYWORDS:
                    visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(closed)
    return closed


@dataclass(frozen=True)
class Checked:
    """Outcome of validating one call: parsed ``args`` and their ``canonical`` JSON text when valid,
    else the ``errors`` (each names its field)."""

    args: Any
    errors: tuple[str, ...]
    canonical: str = field(default="", compare=False)  # derived from args: no part of equality

    @property
    def ok(self) -> bool:
        return not self.errors


class ArgsValidator:
    """A tool's compiled strict validator: a fast yes for valid arguments where the schema allows one
    (``handwritten.fast_check``), jsonschema for every no and for its messages."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        closed = close_objects(schema)
        _StrictValidator.check_schema(closed)
        self._validator = _StrictValidator(closed)
        self._fast = compile_fast_check(closed)

    def check(self, raw: Any, encoded: str | None = None) -> Checked:
        """Validate ``raw`` arguments: a JSON object, or a JSON text (as some models send) parsed first.
        ``encoded``: the canonical JSON of a ``raw`` that is not a text, when the caller has made it already."""
        args = raw
        if isinstance(raw, str):
            encoded = None
            if nests_deeper(raw, MAX_NESTING):
                return Checked(raw, (TOO_DEEP,))
            try:
                args = json.loads(raw, parse_constant=_not_json)
            except RecursionError:  # unreachable after nests_deeper; kept so that no text can end the run
                return Checked(raw, (TOO_DEEP,))
            except ValueError as exc:  # JSONDecodeError is a ValueError too
                return Checked(raw, (f"(arguments): not valid JSON: {getattr(exc, 'msg', exc)}",))
        try:
            canonical = encoded if encoded is not None else canonical_json(args)  # refuses NaN and Infinity, not JSON
        except RecursionError:
            return Checked(args, (TOO_DEEP,))
        except (ValueError, TypeError) as exc:
            return Checked(args, (f"(arguments): not representable as JSON: {exc}",))
        if _opened(canonical) > MAX_NESTING and nesting_depth(args, MAX_NESTING) > MAX_NESTING:
            return Checked(args, (TOO_DEEP,))
        if "\\ud" in canonical and (found := _surrogate(args)) is not None:  # canonical JSON escapes every lone surrogate
            return Checked(args, (f"{found}: holds a lone surrogate, which is not Unicode text",))
        if self._fast is not None and self._fast(args):
            return Checked(args, (), canonical)
        errors = sorted(
            (f"{_path(e.absolute_path)}: {e.message}" for e in self._validator.iter_errors(args)),
        )
        return Checked(args, tuple(errors), canonical)


def nesting_depth(value: Any, limit: int) -> int:
    """How deep arrays and objects sit inside one another in ``value`` (a scalar: 0), counted without recursion (the
    point is to refuse what a recursive walker would die on) and given up once past ``limit``."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


_SPECIAL = re.compile(r'["\\\[\]{}]')  # what changes the depth, or whether a bracket is inside a string


def nests_deeper(text: str, limit: int) -> bool:
    """Whether JSON ``text`` opens more than ``limit`` arrays and objects inside one another, measured in one pass
    without parsing it (brackets inside strings do not count). A text that is not JSON is measured the same way: an
    unterminated string's brackets do not count."""
    if _opened(text) <= limit:
        return False
    depth, in_string, escaped = 0, False, -1  # escaped: where the character a backslash escapes sits
    for match in _SPECIAL.finditer(text):
        at, char = match.start(), match.group()
        if at == escaped:
            continue
        if in_string:
            escaped = at + 1 if char == "\\" else escaped
            in_string = char != '"'
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _opened(text: str) -> int:
    """Every ``[`` and ``{`` of ``text``: no nesting can be deeper."""
    return text.count("[") + text.count("{")


def _surrogate(value: Any) -> str | None:
    """The field of the first string or key in ``value`` that holds a lone surrogate (``(arguments)`` for the whole
    value), shown with it escaped; None when there is none."""
    stack: list[tuple[Any, list[Any]]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str) and has_surrogate(item):
            return _path(path).encode("utf-8", "backslashreplace").decode("utf-8")
        if isinstance(item, dict):
            for key, child in item.items():
                if has_surrogate(key):
                    return _path([*path, key]).encode("utf-8", "backslashreplace").decode("utf-8")
                stack.append((child, [*path, key]))
        elif isinstance(item, list):
            stack.extend((child, [*path, index]) for index, child in enumerate(item))
    return None


def _not_json(literal: str) -> Any:
    raise ValueError(f"{literal} is not a JSON number")


def _path(path: Any) -> str:
    parts = [str(p) for p in path]
    return ".".join(parts) if parts else "(arguments)"
