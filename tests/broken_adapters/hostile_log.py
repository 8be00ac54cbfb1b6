"""What a test-only hostile column tried and what came of it, one JSON line per attempt in its own scratch directory
(``<scratch root>/<column>/hostile.jsonl``), so a test tells "blocked" from "never found"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def attempt(run_scratch: Path, what: str, act: Callable[[], Any]) -> Any:
    """Do ``act``, logging ``what`` with ``done`` or the exception that refused it; the result, or None when refused."""
    try:
        result = act()
        outcome = "done"
    except Exception as exc:  # the point: how it was refused
        result, outcome = None, f"refused: {type(exc).__name__}: {exc}"
    with open(run_scratch.parents[1] / "hostile.jsonl", "a", encoding="utf-8") as log:
        log.write(json.dumps({"tried": what, "outcome": outcome}) + "\n")
    return result


def scratch_root(run_scratch: Path) -> Path:
    """The runner's scratch root, from a run's scratch directory (``<root>/<column>/<mode>/<scenario>``)."""
    return run_scratch.parents[2]
