"""Files only this user can reach: where a tool boundary keeps its grants, secrets and records.

A session's directory holds what decides whether a high-risk call runs (grants, the secret that signs them, the
idempotency records), so it is trusted only when nobody else could have written into it: the directory is this
user's, no symlink, not writable by group or others, and no directory above it lets anyone swap it away (each one
this user's or root's, and writable by others only with the sticky bit, as ``/tmp`` is: the rule OpenSSH applies).
A directory of this user's that others may read is made private (``0700``) before anything goes in; files are created
``0600`` and opened without following symlinks. Anything else is refused with ``UntrustedPath``, which names the path:
nothing is read from it and nothing is written.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

_WRITABLE_BY_OTHERS = stat.S_IWGRP | stat.S_IWOTH
_REACHABLE_BY_OTHERS = 0o077


class UntrustedPath(Exception):
    """A directory or file that someone other than this user could have written: refused, never half-used."""


def private_directory(path: Path) -> Path:
    """``path`` as a private directory of this user's: created ``0700`` if missing, else checked (and tightened)."""
    _check_parent(path)  # the directories above that exist already: nothing is created under someone else's
    try:
        path.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        pass
    except OSError as exc:
        raise UntrustedPath(f"{path}: cannot create the directory ({exc.strerror})") from exc
    else:
        _check_parent(path)  # the directories just made above it too (a umask may have left them open to others)
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise UntrustedPath(f"{path}: a symlink; give the directory itself")
    if not stat.S_ISDIR(info.st_mode):
        raise UntrustedPath(f"{path}: not a directory")
    if _others_may_read(path, info):
        try:
            os.chmod(path, 0o700, follow_symlinks=False)  # ours and written by nobody else: tighten before secrets go in
        except OSError as exc:
            raise UntrustedPath(f"{path}: others can read it and it cannot be made private ({exc.strerror})") from exc
    return path


def private_file(path: Path) -> Path:
    """Create ``path`` (``0600``) or check it: a regular file of this user's, no symlink; others lose any access."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o600)  # a FIFO must not block
    except OSError as exc:
        raise UntrustedPath(f"{path}: cannot open it as a private file ({exc.strerror})") from exc
    try:
        _check_private_fd(path, fd)
    finally:
        os.close(fd)
    return path


def read_private(path: Path) -> str | None:
    """The text of a private file of this user's (None if it does not exist); refused if others could have written it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)  # a FIFO must not block
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UntrustedPath(f"{path}: cannot read it as a private file ({exc.strerror})") from exc
    with os.fdopen(fd, "rb") as handle:
        _check_private_fd(path, handle.fileno())
        data = handle.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UntrustedPath(f"{path}: not text this program wrote") from None


def write_private(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` at once (a reader never sees half a file), the new file ``0600``."""
    _put(path, text, os.replace)


def secret(path: Path) -> bytes:
    """The secret kept in ``path`` (32 random bytes, hex), made once: two processes creating it together share one."""
    existing = read_private(path)
    if existing is None:
        try:
            _put(path, secrets.token_hex(32), os.link)  # a link never replaces: whoever links first made the secret
        except FileExistsError:
            pass
        existing = read_private(path)
    if existing is None or len(existing) != 64:
        raise UntrustedPath(f"{path}: not a secret this program wrote")
    return existing.encode()


def _put(path: Path, text: str, into_place: Callable[[Path, Path], None]) -> None:
    """Write ``text`` to a new ``0600`` file beside ``path``, then move it there with ``into_place`` (replace or link)."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        into_place(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)  # after a replace nothing is left there; after a link, the second name goes


def _check_private_fd(path: Path, fd: int) -> None:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise UntrustedPath(f"{path}: not a regular file")
    if _others_may_read(path, info):
        os.fchmod(fd, 0o600)


def _others_may_read(path: Path, info: os.stat_result) -> bool:
    """Refuse what is not this user's or what others can write; True when others may still read it (to be tightened)."""
    if info.st_uid != os.geteuid():
        raise UntrustedPath(f"{path}: owned by uid {info.st_uid}, not by this user (uid {os.geteuid()})")
    if info.st_mode & _WRITABLE_BY_OTHERS:
        raise UntrustedPath(f"{path}: group or others can write it (mode {stat.S_IMODE(info.st_mode):o}); use one only you can write")
    return bool(info.st_mode & _REACHABLE_BY_OTHERS)


def _check_parent(path: Path) -> None:
    """Whoever can write any directory above can rename the one below away and put another in its place (and SQLite
    reopens its files by name): every ancestor must be this user's or root's, and writable by others only if sticky,
    both along the path as given (a symlink on it is its owner's to replace) and along the real path it leads to."""
    lexical = [(a, os.lstat(a)) for a in path.absolute().parents if os.path.lexists(a)]
    real = [(a, os.stat(a)) for a in Path(os.path.realpath(path.absolute().parent)).joinpath("x").parents if a.exists()]
    for ancestor, info in lexical + real:
        if info.st_uid not in (os.geteuid(), 0):
            raise UntrustedPath(f"{path}: {ancestor} above it is owned by uid {info.st_uid}, who could replace what is below")
        if not stat.S_ISLNK(info.st_mode) and info.st_mode & _WRITABLE_BY_OTHERS and not info.st_mode & stat.S_ISVTX:
            raise UntrustedPath(f"{path}: {ancestor} above it is writable by others without the sticky bit, who could replace what is below")
