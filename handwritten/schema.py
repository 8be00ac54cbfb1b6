"""Strict argument validation with jsonschema (Draft 2020-12).

Strict means: no type coercion ("5" is not an integer, 5.0 is not an integer, ``true``
is not a number), unknown fields rejected even where a schema forgot
``additionalProperties: false``, missing required fields rejected. Validators are
compiled once per tool: compiling costs far more than checking.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any, Mapping

from jsonschema import Draft202012Validator, validators

_TYPES = Draft202012Validator.TYPE_CHECKER.redefine_many(
    {
        # JSON Schema counts 5.0 as an integer and Python counts True as one; neither is strict.
        "integer": lambda _checker, value: isinstance(value, int) and not isinstance(value, bool),
        "number": lambda _checker, value: isinstance(value, (int, float)) and not isinstance(value, bool),
    }
)
_StrictValidator = validators.extend(Draft202012Validator, type_checker=_TYPES)


def close_objects(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Return a copy where every object schema without ``additionalProperties`` rejects unknown fields."""
    closed = copy.deepcopy(dict(schema))

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object" and "additionalProperties" not in node:
                node["additionalProperties"] = False
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(closed)
    return closed


@dataclass(frozen=True)
class Checked:
    """Outcome of validating one call: parsed ``args`` when valid, else the ``errors`` (each names its field)."""

    args: Any
    errors: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.errors


class ArgsValidator:
    """A tool's compiled strict validator."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        closed = close_objects(schema)
        _StrictValidator.check_schema(closed)
        self._validator = _StrictValidator(closed)

    def check(self, raw: Any) -> Checked:
        """Validate ``raw`` arguments: a JSON object, or a JSON text (as some models send) parsed first."""
        args = raw
        if isinstance(raw, str):
            try:
                args = json.loads(raw)
            except json.JSONDecodeError as exc:
                return Checked(raw, (f"(arguments): not valid JSON: {exc.msg}",))
        errors = sorted(
            (f"{_path(e.absolute_path)}: {e.message}" for e in self._validator.iter_errors(args)),
        )
        return Checked(args, tuple(errors))


def _path(path: Any) -> str:
    parts = [str(p) for p in path]
    return ".".join(parts) if parts else "(arguments)"
