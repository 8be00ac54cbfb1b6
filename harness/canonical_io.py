"""The one canonical JSON writer for evidence, traces and logs.

Sorted keys, fixed separators, UTF-8, a trailing newline: the same value always gives
the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def dumps(value: Any) -> str:
    """Pretty canonical JSON for committed files (readable diffs)."""
    return json.dumps(value, sort_keys=True, indent=2, separators=(",", ": "), ensure_ascii=False, allow_nan=False) + "\n"


def canonical_line(value: Any) -> str:
    """Compact canonical JSON on one line, for append-only logs."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False) + "\n"


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(value), encoding="utf-8", newline="\n")
