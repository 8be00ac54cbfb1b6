"""The column's own trace: JSON lines tagged with the driver step, line-buffered so a kill loses nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.canonical_io import canonical_line


class Trace:
    """Appends events of driver step ``driver_step`` to the scenario's trace file."""

    def __init__(self, path: Path, driver_step: int) -> None:
        self.driver_step = driver_step
        self._file = open(path, "a", encoding="utf-8", buffering=1)

    def emit(self, event: dict[str, Any]) -> None:
        self._file.write(canonical_line({"driver_step": self.driver_step, **event}))

    def close(self) -> None:
        self._file.close()
