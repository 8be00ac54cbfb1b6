"""A user of its own for every column process, when the runner is root.

Without separation every column process runs as the runner's own user, so a hostile column can read and write the
files of every other column's scratch directory, and signal (kill) the other columns and the runner itself. When the
runner runs as root (CI does), each column process of a run gets a numeric user and group id of its own instead: the
runner starts it with ``setgroups([])`` and the ids set for real, effective and saved (``subprocess.Popen`` with
``user=``, ``group=``, ``extra_groups=[]``, which calls ``setgroups``, ``setregid`` and ``setreuid`` in the child before
the column's interpreter starts), and its scratch directory is ``0700`` and owned by that id (``private_dir``) inside
directories the runner created ``0711`` (traversable, not listable). So the kernel itself keeps a column out of
another column's files, and refuses it any signal to another column or to the runner (a process may signal only
processes of its own uid) and any look into their memory or environment (``ptrace``, ``/proc/<pid>/mem`` and
``environ`` need the same uid too); the root runner can still kill the column's process group. What a column can
still do, as a column user or without root, is in docs/columns.md. No account is created: the ids
(``BASE_ID`` upwards, ``claim_user``) are numbers that ``/etc/passwd`` and ``/etc/group`` do not use, so a column user
owns nothing but its scratch directory and belongs to no group that owns anything: what it may read elsewhere is what
the mode bits give "other" users.

That is why the repository, the interpreter and each column's environment must be readable by other users, and every
directory above them traversable: a clone under a private home (``/root`` is ``0700``) is not. ``preflight`` runs a
small program as the column user, on the column's own interpreter, and returns one line naming the first path it
cannot reach and what to do, for the runner to call before the column starts (``.ci/run`` grants the traverse bit on the ancestors of CI's
interpreter and clone, never the read bit).

Which protection applied never reaches the evidence: the ids, the modes and the preflight are the runner's business,
and a column sees the same paths, environment and files either way.
"""

from __future__ import annotations

import fcntl
import grp
import json
import os
import pwd
import stat
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError

BASE_ID = 61000
"""The first id tried for a column user. Debian leaves 60000-64999 to be created on demand and systemd's dynamic users
start at 61184, so the first ids above this one are normally free; every id is checked against the account databases
anyway (``claim_user``)."""

PREFLIGHT_TIMEOUT_S = 60.0

# Run as the column user on the column's interpreter (python -I): the interpreter starting at all shows it can be run
# and its standard library read; then its own site-packages and each readable root are walked (dot entries and
# __pycache__ skipped: a stale cache is ignored by Python) and each writable path checked. The first problem is one
# JSON line [what, path] and exit 1. os.access answers for the real ids, which are the column user's here.
_PREFLIGHT = r"""
import json, os, sys, sysconfig
spec = json.load(sys.stdin)

def problem(what, path):
    print(json.dumps([what, path]))
    sys.exit(1)

def check(path, wanted, required):
    what = "write" if wanted else "read"
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:  # a dangling link inside a tree is no problem; a root that is missing is one
        if required:
            problem(what, path)
        return False
    except OSError:
        problem(what, path)
    directory = (mode & 0o170000) == 0o040000
    if not os.access(path, os.R_OK | (os.X_OK if directory else 0) | wanted):
        problem(what, path)
    return directory

def walk(root, required):
    if not check(root, 0, required):
        return
    try:
        names = sorted(os.listdir(root))
    except OSError:
        problem("read", root)
    for name in names:
        if not name.startswith(".") and name != "__pycache__":
            walk(os.path.join(root, name), False)

paths = sysconfig.get_paths()
check(paths["stdlib"], 0, True)
for root in dict.fromkeys([paths["purelib"], paths["platlib"]]):
    walk(root, False)
for root in spec["readable"]:
    walk(root, True)
for path in spec["writable"]:
    check(path, os.W_OK, True)
"""


@dataclass(frozen=True)
class ColumnUser:
    """The numeric user and group id one column process runs under (no account: nothing on the machine uses them)."""

    uid: int
    gid: int


def separation_applies() -> bool:
    """Whether column processes run under users of their own: only root can start a process under another id."""
    return os.geteuid() == 0


CLAIMS_DIR = Path("/run/agent-bench-column-users") if Path("/run").is_dir() else Path("/tmp/agent-bench-column-users")
"""Where a runner claims the ids it hands out (a lock file per id, held while the runner lives): two runners as root on
one machine (pytest's workers, two comparisons) never share an id, so one's end of its column (``end_processes_of``)
never kills the other's column."""
MAX_USERS = 4000
_claims: list[int] = []  # descriptors of the lock files this process holds: released when it ends, never before


def claim_user() -> ColumnUser:
    """A column user no other runner on this machine holds, claimed for the life of this process: the first id from
    ``BASE_ID`` up that no account or group uses and whose lock file this process could lock."""
    os.makedirs(CLAIMS_DIR, mode=0o700, exist_ok=True)
    taken = {entry.pw_uid for entry in pwd.getpwall()} | {entry.gr_gid for entry in grp.getgrall()}
    for candidate in range(BASE_ID, BASE_ID + MAX_USERS):
        if candidate in taken or _known_id(candidate):
            continue
        fd = os.open(CLAIMS_DIR / str(candidate), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)  # another runner's, or one this process holds already
            continue
        _claims.append(fd)
        return ColumnUser(candidate, candidate)
    raise HarnessError(f"no free column user id among {MAX_USERS} from {BASE_ID}")


def _known_id(number: int) -> bool:
    """Whether an account or group database that ``getpwall`` cannot list (LDAP, systemd's dynamic users) knows ``number``."""
    for lookup in (pwd.getpwuid, grp.getgrgid):
        try:
            lookup(number)
        except KeyError:
            continue
        return True
    return False


def traversable(path: Path) -> Path:
    """``path``, a directory the runner created for this run (a ``mkdtemp``, whose mode is ``0700``), made traversable
    but not listable by other users (``0711``) when separation applies, so the column users can reach their scratch
    directories inside it and the scenarios the runner wrote there. Never call it on a shared directory (``/tmp``)."""
    if separation_applies():
        os.chmod(path, 0o711)
    return path


def private_dir(path: Path, user: ColumnUser) -> Path:
    """``path`` as a directory of ``user`` alone (``0700``, owned by its ids), created if missing. Its missing parents
    are created by the runner ``0711``: the column user passes through them to its own directory but cannot list
    them, so it learns no other column's directory from them. Parents that exist are left as they are (``preflight``
    says when one cannot be passed)."""
    path = Path(os.path.abspath(path))
    for parent in reversed([p for p in path.parents if not p.exists()]):
        parent.mkdir(exist_ok=True)  # exist_ok: two columns of a run may create their common parent at once
        os.chmod(parent, 0o711)
    path.mkdir(exist_ok=True)
    if not stat.S_ISDIR(os.lstat(path).st_mode):
        raise HarnessError(f"{path} is not a directory the runner created: a column's scratch must be one")
    os.chown(path, user.uid, user.gid, follow_symlinks=False)
    os.chmod(path, 0o700)
    return path


class CannotReach(HarnessError):
    """``preflight``'s line: the column user cannot reach what a column needs (the CLI prints it and exits 2)."""


_KILL_ALL = "import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept ProcessLookupError:\n    pass\n"
"""Run as the column user: ``kill(-1)`` signals every process of that id but the caller, and none of another id."""
END_ROUNDS = 20


def end_processes_of(user: ColumnUser) -> None:
    """Kill every process running under ``user``'s ids, its group's or not (one that called ``setsid`` left the group the
    runner kills), until none is left: a column's processes never outlive its run, nor meet the next run's column that
    gets the same ids. The kill is sent by a process of that id (``kill(-1)``): root killing pids it listed could hit a
    pid reused by another process in between. A zombie nobody reaps (a container's init may not) counts as gone."""
    for _ in range(END_ROUNDS):  # a process that forks as fast as it is killed is met again in the next round
        if not _running_as(user.uid):
            return
        subprocess.run([sys.executable, "-I", "-c", _KILL_ALL], cwd="/", env={}, capture_output=True, timeout=PREFLIGHT_TIMEOUT_S,
                       user=user.uid, group=user.gid, extra_groups=[])  # fmt: skip
        deadline = time.monotonic() + 1.0
        while _running_as(user.uid) and time.monotonic() < deadline:  # a killed process takes a moment to go
            time.sleep(0.01)
    if _running_as(user.uid):
        raise HarnessError(f"the processes of column user {user.uid} kept coming back after {END_ROUNDS} rounds of kill(-1)")


def _running_as(uid: int) -> bool:
    """Whether a process that is not a zombie runs under real user id ``uid``."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text(encoding="utf-8")
        except OSError:
            continue  # gone meanwhile
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("Uid", "").split()[:1] == [str(uid)] and not fields.get("State", "").strip().startswith("Z"):
            return True
    return False


MAX_COLUMN_FILE = 256 << 20
"""The largest file of a column's the runner reads (its observations, its guard's log, its line traces): the committed
evidence's largest column document is under 3 MB; a larger file (a sparse one costs the column nothing) is refused
before it is read, so a column cannot make the runner hold gigabytes."""


def read_column_file(path: Path, within: Path | None = None) -> str:
    """The text of a file a column process wrote in its own scratch directory, read only if it is a regular file of at
    most ``MAX_COLUMN_FILE`` bytes, not through a symbolic link, nor (with ``within``, the column's scratch directory)
    through a link among the directories between ``within`` and the file. The runner, root, could read any file: a
    column must not make it read another column's (a link planted in its own directory), wait forever (a FIFO) or hold
    more than it should. ``FileNotFoundError`` when missing."""
    for directory in [within / part for part in _between(path, within)] if within is not None else []:
        if os.path.islink(directory):
            raise HarnessError(f"{directory} is a symbolic link, not a directory the column made")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise HarnessError(f"{path} is not a file the column wrote (a symbolic link, or unreadable): {exc.strerror}") from None
    with open(fd, encoding="utf-8") as file:
        facts = os.fstat(file.fileno())
        if not stat.S_ISREG(facts.st_mode):
            raise HarnessError(f"{path} is not a regular file: a column's output must be one")
        if facts.st_size > MAX_COLUMN_FILE:
            raise HarnessError(f"{path} holds {facts.st_size} bytes, more than the {MAX_COLUMN_FILE >> 20} MiB a column's file may")
        return file.read(MAX_COLUMN_FILE)


def _between(path: Path, within: Path) -> list[str]:
    """The directories from ``within`` down to ``path``'s own, as cumulative relative paths (``a``, ``a/b``)."""
    parts = path.relative_to(within).parts[:-1]
    return [os.path.join(*parts[: i + 1]) for i in range(len(parts))]


def preflight(user: ColumnUser, python: Path, readable: Iterable[Path] = (), writable: Iterable[Path] = ()) -> str | None:
    """None when ``user`` can run ``python`` (the column's interpreter: its standard library and site-packages are
    checked too), read every path of ``readable`` (a directory with everything under it, dot entries and
    ``__pycache__`` aside: the repository, the scenarios) and write in every directory of ``writable`` (the column's
    scratch directory); else one line naming the first path it cannot reach and what to do."""
    spec = json.dumps({"readable": [str(p) for p in readable], "writable": [str(p) for p in writable]})
    command = [str(python), "-I", "-c", _PREFLIGHT]
    try:
        done = subprocess.run(command, input=spec, capture_output=True, text=True, cwd="/", env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
                              timeout=PREFLIGHT_TIMEOUT_S, user=user.uid, group=user.gid, extra_groups=[])  # fmt: skip
    except OSError:  # the interpreter could not be started at all (a directory above it is not searchable)
        return _unreachable(user, "run", python)
    except subprocess.TimeoutExpired:
        return f"the column user {user.uid} could not check within {PREFLIGHT_TIMEOUT_S:.0f} s that it can read what a column needs ({python})"
    if done.returncode == 0:
        return None
    try:
        what, path = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):  # the interpreter started but could not read its own standard library
        return _unreachable(user, "run", python)
    return _unreachable(user, what, Path(path))


def _unreachable(user: ColumnUser, what: str, path: Path) -> str:
    """The line for a path the column user cannot reach: the first directory on its way that other users cannot pass
    through, if there is one (seen from here: the directories above the path as named, then above the file a symbolic
    link leads to), else the path itself."""
    named, real = Path(os.path.abspath(path)), Path(os.path.realpath(path))
    on_the_way = [*reversed(named.parents), *reversed(real.parents), real]
    closed = next((p for p in on_the_way if _closed_to_others(p)), None)
    if closed is not None and closed != real:
        fix = f"{closed} is closed to other users: grant it the traverse bit alone (chmod o+x {closed})"
    elif what == "write":
        fix = "make it the column user's own directory (users.private_dir)"
    else:
        fix = f"make it readable by other users (chmod -R o+rX {real}), or clone the repository where they can read it"
    fix += ", or run as a non-root user"
    return f"the column user {user.uid} cannot {what} {path}: {fix}"


def _closed_to_others(path: Path) -> bool:
    """Whether ``path`` is a directory that other users cannot pass through (no ``o+x``)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISDIR(mode) and not mode & stat.S_IXOTH
