"""The one canonical JSON writer for evidence, traces and logs, and the one way committed output reaches disk.

Sorted keys, fixed separators, UTF-8, a trailing newline: the same value always gives the same bytes.

Text a column sent (a wire body, a message, a tool's arguments) may hold a lone surrogate: the text ``"\\ud800"``
parses to one, and it is no Unicode character. JSON is written with each as its ``\\udXXX`` escape, so the output
is valid UTF-8 and reads back as the same string (``handwritten.canonical.escape_surrogates``); other text
(FINDINGS.md, the report, the scorecard) is written with each as the same backslash escape.

A file is written to a temporary file beside it and renamed into place (``os.replace``): a failure (a value JSON
cannot spell, a full disk, a signal) leaves the file as it was, never truncated or half written.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from handwritten.canonical import escape_surrogates


def dumps(value: Any) -> str:
    """Pretty canonical JSON for committed files (readable diffs)."""
    return escape_surrogates(json.dumps(value, sort_keys=True, indent=2, separators=(",", ": "), ensure_ascii=False, allow_nan=False)) + "\n"


def canonical_line(value: Any) -> str:
    """Compact canonical JSON on one line, for append-only logs."""
    return escape_surrogates(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)) + "\n"


def write_json(path: Path, value: Any) -> None:
    """``value`` as canonical JSON at ``path``, replacing the file whole or not at all."""
    write_text_atomic(path, dumps(value))


def write_files(directory: Path, files: Mapping[str, Any]) -> None:
    """Every file of ``files`` in ``directory``, by name: a text as it is, any other value as canonical JSON; each one
    replaced whole or not at all (``write_text_atomic``)."""
    for name, content in files.items():
        write_text_atomic(directory / name, content if isinstance(content, str) else dumps(content))


def as_written(text: str) -> str:
    """``text`` as ``write_text_atomic`` writes it: each lone surrogate as its backslash escape (``\\ud800``)."""
    return text if text.isascii() else text.encode("utf-8", errors="backslashreplace").decode("utf-8")


def write_text_atomic(path: Path, text: str) -> None:
    """``text`` in UTF-8 at ``path`` (a lone surrogate as its backslash escape; line ends as given): written whole to
    a new file in the same directory, then renamed over ``path``, so that a reader or a failure meets the old file or
    the new one, never a part. The crash model is process death, not power loss (docs/contract.md): no ``fsync``.
    The file keeps its permission bits (a new one is made as any file is, under the umask); a symbolic link is
    written through, to the file it names."""
    path = Path(os.path.realpath(path)) if Path(path).is_symlink() else Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = as_written(text).encode("utf-8")  # before any file is touched
    temporary = path.parent / f".{path.name}.{uuid.uuid4().hex}.tmp"  # O_EXCL: never another's file
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temporary, stat.S_IMODE(os.stat(path).st_mode))
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
