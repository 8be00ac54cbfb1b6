"""Test-only column whose step hangs forever, as a framework's hidden loop might."""

from __future__ import annotations

import time
from typing import Any

from harness import handwritten_column

COLUMN = "hangs"
MODES = handwritten_column.MODES
facts = handwritten_column.facts


def perform(scenario: Any, scratch: Any, request: dict[str, Any], mode: str = "contract") -> dict[str, Any]:
    while True:
        time.sleep(1)
