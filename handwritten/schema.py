"""Strict argument validation with jsonschema (Draft 2020-12).

Strict means: no type coercion ("5" is not an integer, 5.0 is not an integer, ``true``
is not a number), unknown fields rejected even where a schema forgot
``additionalProperties: false``, missing required fields rejected. Validators are
compiled once per tool: compiling costs far more than checking.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator, validators

from .canonical import canonical_json
from .fast_check import compile_fast_check

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
            try:
                args = json.loads(raw, parse_constant=_not_json)
            except ValueError as exc:  # JSONDecodeError is a ValueError too
                return Checked(raw, (f"(arguments): not valid JSON: {getattr(exc, 'msg', exc)}",))
        try:
            canonical = encoded if encoded is not None else canonical_json(args)  # refuses NaN and Infinity, not JSON
        except (ValueError, TypeError) as exc:
            return Checked(args, (f"(arguments): not representable as JSON: {exc}",))
        if self._fast is not None and self._fast(args):
            return Checked(args, (), canonical)
        errors = sorted(
            (f"{_path(e.absolute_path)}: {e.message}" for e in self._validator.iter_errors(args)),
        )
        return Checked(args, tuple(errors), canonical)


def _not_json(literal: str) -> Any:
    raise ValueError(f"{literal} is not a JSON number")


def _path(path: Any) -> str:
    parts = [str(p) for p in path]
    return ".".join(parts) if parts else "(arguments)"
