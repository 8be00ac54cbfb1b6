"""The column processes the runner starts: each in a session of its own, watched, stoppable as a whole.

A column process and the workers it forks share one process group, started as a new session so a
Ctrl-C at the terminal reaches only the CLI, which then stops them all (``stop_all``) and cleans up,
instead of every column dying on its own and being reported as not measured. While a column runs,
the lines it writes that start with ``PROGRESS`` are handed to a callback as they come (one per
finished scenario); the rest is kept as the tail an error report quotes.

Given a ``ColumnUser`` (when the runner is root: ``harness.runner_side.run.users``), the column process runs under that
user's ids with no supplementary groups, set before its interpreter starts; the runner, root, still kills its group.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.records import PROGRESS_PREFIX as PROGRESS
from harness.runner_side.run.users import ColumnUser, end_processes_of

MAX_LINE = 1 << 16  # characters of one line a column process writes: progress lines are short, a longer line is cut
READER_GRACE_S = 5.0  # how long the column's output is still read once its process has ended
_running: set[subprocess.Popen[str]] = set()
_lock = threading.Lock()
_stopping = threading.Event()


@dataclass(frozen=True)
class Finished:
    """How a column process ended: its exit code (negative: the signal that killed it), whether its time
    ran out, and the last lines it wrote that were not progress."""

    returncode: int
    timed_out: bool
    tail: list[str]


class Stopped(Exception):
    """The CLI was asked to stop (a signal): every column process was killed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def run_watched(
    command: Sequence[str],
    *,
    env: dict[str, str],
    cwd: Path,
    timeout_s: float,
    on_progress: Callable[[str], None],
    stdin_text: str = "",
    pass_fds: Sequence[int] = (),
    user: ColumnUser | None = None,
) -> Finished:
    """Run one column process in a new session, forwarding its progress lines, killing its whole group at
    ``timeout_s`` or when ``stop_all`` is called. ``stdin_text`` is written to its standard input, which is then closed:
    what other processes must not read goes there, not on the command line (``/proc/<pid>/cmdline`` is world-readable).
    ``pass_fds`` stay open in the process under the same numbers (a channel the runner keeps the other end of).
    With ``user`` the process runs under that user's ids (``setgroups([])``, then the group id and the user id, real,
    effective and saved, all before ``exec``: Popen's ``extra_groups``, ``group`` and ``user``), so it can signal no
    process of another id; ``cwd`` must then be reachable by that user (``users.private_dir``)."""
    if _stopping.is_set():
        return Finished(-signal.SIGKILL, False, ["stopped before it started"])
    if user is not None:
        end_processes_of(user)  # whatever an earlier run under these ids left behind
    process = subprocess.Popen(command, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                               start_new_session=True, pass_fds=pass_fds, **_ids(user))  # fmt: skip
    assert process.stdin is not None
    try:
        process.stdin.write(stdin_text)
        process.stdin.close()
    except BrokenPipeError:  # the process died at once: its exit status says why
        pass
    with _lock:
        _running.add(process)
    timed_out = threading.Event()

    def expire() -> None:
        timed_out.set()
        _kill(process)

    watchdog = threading.Timer(timeout_s, expire)
    watchdog.daemon = True
    watchdog.start()
    tail: deque[str] = deque(maxlen=20)
    kept = threading.Lock()

    def read() -> None:  # in a thread: a process that left the group may hold the pipe open past the column's end
        assert process.stdout is not None
        with contextlib.suppress(OSError, ValueError):  # the pipe closed under it: what came is kept
            while line := process.stdout.readline(MAX_LINE):  # a line without end is cut, never held whole
                if line.startswith(PROGRESS):
                    with contextlib.suppress(Exception):  # a reader's mistake must never stop the draining
                        on_progress(line[len(PROGRESS):].strip())
                elif line.strip():
                    with kept:
                        tail.append(line.rstrip())

    reader = threading.Thread(target=read, name="column-output", daemon=True)
    reader.start()
    try:
        returncode = process.wait()
    finally:
        watchdog.cancel()
        _kill(process)  # workers a dead column process left behind
        with _lock:
            _running.discard(process)
        if user is not None:
            end_processes_of(user)  # and any process it started that left its group (setsid): every one of its ids
    reader.join(READER_GRACE_S)  # without root a process that left the group keeps the pipe: not waited for
    with kept:
        return Finished(returncode, timed_out.is_set(), list(tail))


def _ids(user: ColumnUser | None) -> dict[str, Any]:
    """Popen's arguments that start a process under ``user``'s ids alone, or none."""
    return {} if user is None else {"user": user.uid, "group": user.gid, "extra_groups": []}


def stop_all() -> None:
    """Kill every column process group started here, and start no more (called from a signal handler)."""
    _stopping.set()
    with _lock:
        running = list(_running)
    for process in running:
        _kill(process)


def stopping() -> bool:
    """Whether ``stop_all`` was called."""
    return _stopping.is_set()


def _kill(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
