"""Test-only column whose run step ends in a ``TimeoutError`` escaping the column's code, as when a
framework re-raises a tool's exception. Whether that is a measured outcome or an adapter failure is
for the column's MAPPING.md to say."""

from __future__ import annotations

from typing import Any

from harness import handwritten_column

COLUMN = "raises_timeout"
MODES = handwritten_column.MODES
facts = handwritten_column.facts


def perform(scenario: Any, scratch: Any, request: dict[str, Any], mode: str = "contract") -> dict[str, Any]:
    raise TimeoutError("the framework gave up waiting for a tool")
