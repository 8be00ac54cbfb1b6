"""A key held while its call executes, across every process serving one session.

Several servers of one session (or one server's concurrent requests) may receive the same call with the same key at
once. The idempotency record alone says ``in_progress`` both for a call running right now and for one whose process
died mid-call (uncertain), and it is only written after the approval is taken; holding the key for the whole decision
and execution tells those apart and keeps a second delivery from reaching the approval stage at all.

The hold is a POSIX record lock on one byte of ``<session>/inflight.lock``, at an offset derived from the key's hash
(one file for every key, nothing to clean up): the kernel drops it when the holder's process dies, so a killed server
never leaves a key held. Record locks belong to a process, not to a descriptor or a thread, and closing any descriptor
of the file drops all of them; so a process opens each lock file once, shared by every ``KeyLocks`` on it, and a set
of the keys it holds guards its own threads.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .private_files import private_file

_OFFSET_BITS = 62  # within a signed 64-bit off_t; two keys share a byte with odds of about 2^-62 per pair


@dataclass
class _LockFile:
    fd: int
    users: int = 1
    held: set[str] = field(default_factory=set)  # the keys this process holds in the file


_open: dict[tuple[int, int], _LockFile] = {}  # (device, inode) -> this process's one descriptor of that file
_guard = threading.Lock()


def _forget_after_fork() -> None:
    """A forked child holds none of its parent's record locks (they are not inherited): it starts with no holds, and
    with a guard no thread of the parent's can have left taken."""
    global _guard
    _guard = threading.Lock()
    for shared in _open.values():
        shared.held.clear()


os.register_at_fork(after_in_child=_forget_after_fork)


class KeyLocks:
    """Non-blocking holds on keys: ``hold(key)`` yields False while any process (this one included) holds it."""

    def __init__(self, path: Path) -> None:
        self._closed = False
        with _guard:
            try:
                known = os.stat(path, follow_symlinks=False)  # a stat, not an open: opening and closing would drop holds
                self._id = (known.st_dev, known.st_ino)
            except FileNotFoundError:
                self._id = (-1, -1)
            if self._id in _open:
                _open[self._id].users += 1
                return
            fd = os.open(private_file(path), os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)  # this process's first: no hold to lose
            info = os.fstat(fd)
            self._id = (info.st_dev, info.st_ino)
            _open[self._id] = _LockFile(fd)

    @contextmanager
    def hold(self, key: str) -> Iterator[bool]:
        """Hold ``key`` for the block if nobody does: True when held, False when another delivery holds it."""
        offset = _offset(key)
        with _guard:
            shared = _open[self._id]
            held = key not in shared.held and _try_lock(shared.fd, offset)
            if held:
                shared.held.add(key)
        try:
            yield held
        finally:
            if held:
                with _guard:
                    fcntl.lockf(shared.fd, fcntl.LOCK_UN, 1, offset)
                    shared.held.discard(key)

    def close(self) -> None:
        """Stop using the lock file (a second call does nothing); the last user in the process closes its descriptor."""
        with _guard:
            if self._closed:
                return
            self._closed = True
            shared = _open[self._id]
            shared.users -= 1
            if shared.users == 0:
                del _open[self._id]
                os.close(shared.fd)


def _try_lock(fd: int, offset: int) -> bool:
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset)
    except (BlockingIOError, PermissionError):  # EAGAIN or EACCES: another process holds it
        return False
    return True


def _offset(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()[:8], "big") >> (64 - _OFFSET_BITS)
