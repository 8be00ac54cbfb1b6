"""Test-only broken column: the hand-written engine with a lax validator that turns numeric
strings into numbers before checking, as lax pydantic models do."""

from __future__ import annotations

from typing import Any

from adapters.handwritten.column import HandwrittenColumn
from handwritten.schema import ArgsValidator, Checked


class Column(HandwrittenColumn):
    name = "broken_coerces_arguments"

_strict_check = ArgsValidator.check


def _coerce(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _coerce(v) for k, v in value.items()}
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    return value


def _lax_check(self: ArgsValidator, raw: Any) -> Checked:
    return _strict_check(self, _coerce(raw))


ArgsValidator.check = _lax_check  # type: ignore[method-assign]
