"""Test-only column whose run step ends in a ``TimeoutError`` escaping the column's code, as when a
framework re-raises a tool's exception. Whether that is a measured outcome or an adapter failure is
for the column's MAPPING.md to say."""

from __future__ import annotations

from typing import Any

from adapters.handwritten.column import HandwrittenColumn


class Column(HandwrittenColumn):
    name = "raises_timeout"

    def perform(self, scenario: Any, scratch: Any, request: Any, mode: str = "contract") -> Any:
        raise TimeoutError("the framework gave up waiting for a tool")
