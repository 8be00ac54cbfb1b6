"""Test-only column whose step hangs forever, as a framework's hidden loop might."""

from __future__ import annotations

import time
from typing import Any

from adapters.handwritten.column import HandwrittenColumn


class Column(HandwrittenColumn):
    name = "hangs"

    def perform(self, scenario: Any, scratch: Any, request: Any, mode: str = "contract") -> Any:
        while True:
            time.sleep(1)
