"""Untrusted JSON files read with bounds, so that a hostile or careless file is one clear error, never a
traceback, a hang or a run that fails later.

``read_bytes`` refuses what is not a regular file (a directory, a FIFO that would block the read forever, a
device) and a file over its size limit, before reading it whole. ``loads`` parses strictly: what Python's
``json`` accepts but is not portable JSON, or would break later, is refused with the path of the value:

- ``NaN``, ``Infinity``, ``-Infinity`` (not JSON), and a number literal so large it becomes infinity (``1e999``);
- an integer outside ±(2**53 - 1), the range every JSON implementation reads exactly (RFC 8259 section 6);
  a 5,000-digit literal would otherwise hit Python's integer conversion limit;
- a key that appears twice in one object (Python keeps the last silently);
- a string or key with a lone surrogate escape (``"\\ud800"``), which no UTF-8 writer can write back;
- nesting deeper than ``MAX_DEPTH`` arrays and objects (far deeper ones would exhaust the recursion limit);
- an array or object of more than ``MAX_ITEMS`` elements: a file within its size limit can still hold fifty
  thousand driver steps, which a JSON Schema validator takes half a minute over.

JSON held *in* a string (a scripted model's raw arguments text) is parsed by every column at run time, so
``text_nested_too_deeply`` measures it the same way, without parsing it: ``"[" * 100000`` is a short string.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
from pathlib import Path
from typing import Any

from handwritten.schema import nests_deeper

MAX_DEPTH = 32  # levels of arrays and objects; a committed scenario nests 8 deep
MAX_ITEMS = 4096  # elements of one array or object; a committed scenario has at most 14, scripts/bench_scaling.py 501
MAX_SAFE_INTEGER = 2**53 - 1
_KINDS = {stat.S_IFREG: "a file", stat.S_IFDIR: "a directory", stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFSOCK: "a socket",
          stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device"}  # fmt: skip


class JsonInputError(Exception):
    """Why a file was refused: ``problem`` in words and, when one value is at fault, its ``field`` (a path
    such as ``driver/1/name``; ``(top level)`` for the document itself)."""

    def __init__(self, problem: str, field: str | None = None) -> None:
        super().__init__(f"field '{field}': {problem}" if field is not None else problem)
        self.problem = problem
        self.field = field


def read_bytes(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes. The file is opened without blocking (a FIFO
    would wait for a writer) and checked through its open descriptor, so nothing can be swapped in between."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise JsonInputError(f"cannot be read: {why(path, exc)}") from None
    try:
        mode = os.fstat(fd)
        if not stat.S_ISREG(mode.st_mode):
            raise JsonInputError(f"cannot be read: {kind(mode.st_mode)}, not a regular file")
        if mode.st_size > limit:
            raise JsonInputError(_too_large(mode.st_size, limit))
        raw = b""
        while len(raw) <= limit:  # the file may have grown since fstat: never more than limit + 1 bytes
            chunk = os.read(fd, limit + 1 - len(raw))
            if not chunk:
                break
            raw += chunk
    finally:
        os.close(fd)
    if len(raw) > limit:
        raise JsonInputError(_too_large(None, limit))
    return raw


def kind(mode: int) -> str:
    """What a ``stat`` mode says a path is, in words ("a FIFO (named pipe)")."""
    return _KINDS.get(stat.S_IFMT(mode), "not a file")


def why(path: Path, exc: OSError) -> str:
    """Why ``path`` could not be opened, in words (a symbolic link loop and a dangling link named as such)."""
    if exc.errno == errno.ELOOP:
        return "a symbolic link loop"
    if exc.errno == errno.ENOENT and path.is_symlink():
        return f"a symbolic link to nothing ({os.readlink(path)} does not exist)"
    return exc.strerror or str(exc)


def _too_large(size: int | None, limit: int) -> str:
    actual = f"{size:,} bytes" if size is not None else "it grew while being read"
    return f"too large: {actual}, over the limit of {limit / 2**20:g} MiB ({limit:,} bytes)"


class _Refused:
    """A parsed value ``loads`` refuses; the parser's hooks cannot say where they are, the walk afterwards does."""

    def __init__(self, problem: str, key: str | None = None) -> None:
        self.problem = problem
        self.key = key  # for a duplicate key: the key, so the field named is the key itself


def _integer(text: str) -> int | _Refused:
    digits = text.lstrip("-")
    if len(digits) <= 16 and abs(value := int(text)) <= MAX_SAFE_INTEGER:
        return value
    shown = text if len(text) <= 20 else f"{text[:12]}… ({len(digits):,} digits)"
    return _Refused(f"integer {shown} is outside ±(2**53 - 1), the range every JSON reader reads exactly")


def _float(text: str) -> float | _Refused:
    value = float(text)
    return value if math.isfinite(value) else _Refused(f"number {text[:20]} is too large: it would be read as infinity")


def _constant(name: str) -> _Refused:
    return _Refused(f"{name} is not JSON (numbers must be finite)")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any] | _Refused:
    value = dict(pairs)
    if len(value) == len(pairs):
        return value
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return _Refused("appears twice in one object (JSON readers disagree on which value counts)", key=key)
        seen.add(key)
    raise AssertionError("unreachable: fewer keys than pairs means a repeated key")


def loads(text: str) -> Any:
    """The JSON value of ``text``, refused as described in the module docstring."""
    try:
        value = json.loads(text, parse_int=_integer, parse_float=_float, parse_constant=_constant, object_pairs_hook=_object)
    except RecursionError:
        raise JsonInputError(f"nested too deeply (at most {MAX_DEPTH} levels of arrays and objects)") from None
    except json.JSONDecodeError as exc:
        raise JsonInputError(f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    _check(value)
    return value


def text_nested_too_deeply(text: str) -> bool:
    """Whether ``text``, JSON held in a string, opens more than ``MAX_DEPTH`` arrays and objects inside one another
    (brackets inside its strings do not count; a text that is not JSON is measured the same way)."""
    return nests_deeper(text, MAX_DEPTH)


def _check(document: Any) -> None:
    """Walk the document in order (with a stack: it may nest as deep as the recursion limit) and raise on the
    first refused value."""
    stack: list[tuple[Any, list[str]]] = [(document, [])]
    while stack:
        value, path = stack.pop()
        field = "/".join(path) or "(top level)"
        if isinstance(value, _Refused):
            raise JsonInputError(value.problem, "/".join(path + [_printable(value.key)]) if value.key is not None else field)
        if isinstance(value, str):
            if _lone_surrogate(value):
                raise JsonInputError("holds a lone surrogate escape (such as \\ud800), which is not Unicode text", field)
            continue
        if not isinstance(value, dict | list):
            continue
        if len(path) >= MAX_DEPTH:
            raise JsonInputError(f"nested too deeply (at most {MAX_DEPTH} levels of arrays and objects)", field)
        if len(value) > MAX_ITEMS:
            raise JsonInputError(f"too many elements: {len(value):,}, over the limit of {MAX_ITEMS:,} in one {'object' if isinstance(value, dict) else 'array'}", field)
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        for key, _ in items:
            if isinstance(key, str) and _lone_surrogate(key):
                raise JsonInputError("this key holds a lone surrogate escape (such as \\ud800), which is not Unicode text", "/".join(path + [_printable(key)]))
        stack.extend((item, path + [str(key)]) for key, item in reversed(items))


def _lone_surrogate(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _printable(key: str) -> str:
    return key.encode("utf-8", errors="backslashreplace").decode("utf-8")
