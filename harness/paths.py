"""The one way a name that came from a scenario file (a session id, a scenario id, a run key, a saved state's
name) becomes a path: ``inside(root, ...)``.

Scenario files come from strangers (a colleague's, an issue's attachment). Joined as they are, an absolute
``session_id`` replaces the whole path and ``..`` climbs out of the run's scratch directory: a scenario once
named the user's live MCP session directory that way, and its one ``grant`` step made that session's waiting
transfer run. The schema already gives every such field a plain-name pattern; this function is the second
wall, at the join itself, so a field added later without a pattern, or a caller that joins before validating,
still cannot reach outside ``root``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from harness.errors import HarnessError, printable

PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}")
"""One path component: letters, digits, '.', '_', '@', '+', '-' (a sub-case such as ``@write_held+siblings_first``), starting with a letter or a digit, at most 128
characters (well under every file system's 255-byte name limit, with room for a suffix); never '.', '..',
empty, absolute, or holding a separator, a NUL or a newline."""


def plain_name(name: str, what: str) -> str:
    """``name`` itself when it is a plain name (``PLAIN_NAME``, matched whole), else a ``HarnessError`` naming ``what``."""
    if not isinstance(name, str) or not PLAIN_NAME.fullmatch(name):
        raise HarnessError(f"{what} {printable(repr(name))} is not a plain name (letters, digits, '.', '_', '@', '+', '-'; "
                           "starting with a letter or a digit; at most 128)")
    return name


def inside(root: Path, *names: str, what: str = "a name from the scenario") -> Path:
    """``root / names...`` where each name is one or more plain names joined by '/' (a run key such as
    ``contract/crash_resume.again``), refused (``HarnessError``) if any part is not plain or the result, with
    symbolic links resolved, is not under ``root``."""
    parts = [plain_name(part, what) for name in names for part in (name.split("/") if isinstance(name, str) else [name])]
    path = root.joinpath(*parts)
    base = os.path.realpath(root)
    if os.path.commonpath([base, os.path.realpath(path)]) != base:  # a symbolic link inside root that leads out of it
        raise HarnessError(f"{what} {printable('/'.join(names))!s} leads outside {root.name}/")
    return path
