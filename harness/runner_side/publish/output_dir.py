"""The comparison's output directory: whether the evidence can be written there, what it held before the run (read
once, before any column starts), and how a regenerated text differs from the file there."""

from __future__ import annotations

import difflib
import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

from harness.json_input import kind, why
from harness.scenarios import shown


def real(path: Path) -> Path:
    """The path with every symbolic link resolved; a loop is left as it is (``Path.resolve`` raises on one on
    Python 3.11), so the check that meets it can say so."""
    return Path(os.path.realpath(path))


def unwritable(output: Path) -> str | None:
    """Why the evidence cannot be written to ``output``, checked before any column runs: it exists and is not a
    directory, it is a symbolic link loop, or the nearest directory that exists above it is not writable."""
    try:
        mode = output.stat().st_mode
        return None if stat.S_ISDIR(mode) else f"{kind(mode)}, not a directory"
    except OSError as exc:
        if exc.errno != errno.ENOENT or output.is_symlink():  # a loop, a link to nowhere, no permission
            return f"cannot be used: {why(output, exc)}"
    existing = next(p for p in (output.absolute(), *output.absolute().parents) if os.path.lexists(p))
    if not existing.is_dir():
        return f"cannot be created: {shown(existing)} is not a directory"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"cannot be created: {shown(existing)} is not writable"
    return None


def diff_text(name: str, committed: Path, fresh: str) -> list[str]:
    """The first lines of a unified diff between a committed text file and a fresh one (empty when equal)."""
    old = committed.read_text(encoding="utf-8") if committed.exists() else ""
    changed = list(difflib.unified_diff(old.splitlines(), fresh.splitlines(), f"committed {name}", f"fresh {name}", lineterm="", n=0))
    return [f"{name}: {line}" for line in changed[:40]] + ([f"{name}: … {len(changed) - 40} more diff lines"] if len(changed) > 40 else [])


class BadOutput(Exception):
    """A file in --output that the run would read (to merge or --check against) and cannot."""


def output_as_it_was(output: Path) -> dict[str, Any]:
    """The output's JSON files by name, read once before any column runs: one that cannot be read stops the run
    now, not after every column has run."""
    before = {}
    for path in sorted(output.glob("*.json")):
        try:
            before[path.name] = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise BadOutput(f"{shown(path)}: cannot be read: {why(path, exc)} (a file in --output the run would update)") from None
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            raise BadOutput(f"{shown(path)}: not valid JSON: {str(exc).splitlines()[0]} (a file in --output the run would update)") from None
    return before
