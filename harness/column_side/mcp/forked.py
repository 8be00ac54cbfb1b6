"""A stdio MCP server forked from this process: the program ``python -I <script> <args>`` would run, without its start.

A worker that has already imported the MCP SDK forks the server instead of starting a fresh interpreter that
imports it again (most of a start). The child puts two new pipes on its stdin and stdout, sets the environment
the exec'd program would get, runs the script as ``__main__`` with its arguments in ``sys.argv``, and ends with
``os._exit`` and the script's exit status: the same program, the same main function, the same transport (real
pipes, the SDK's server on the far side); a fault that kills a tool ends it with ``FAULT_EXIT_CODE`` as it would
end the exec'd one. The parent keeps the other ends (non-blocking, for its event loop) and reads the exit status
with ``waitpid``.

What the child starts from is the parent's memory at the fork, never an earlier server's (each server is its own
fork, and it ends with its process). Fork hazards, and how they are met:
- threads: the fork happens while the parent is one thread (checked); its event loop starts after;
- descriptors: the child closes the parent's ends of the pipes (its stdin would never end otherwise) and keeps
  the rest without using them: closing them under the objects that hold them would let a finalizer close a
  number the server has reused. A parent should fork before it opens a file the server opens too (SQLite's
  locks are per process, and a connection open across a fork corrupts what the child believes it holds);
- buffers: the parent's stdout and stderr are flushed before the fork, and the child never flushes the
  parent's buffered files nor runs its ``atexit`` handlers (``os._exit``): its own stdin and stdout are new
  objects on descriptors 0 and 1, the parent's old ones kept (unused) so that dropping them closes nothing;
- the audit hook (the network guard) is inherited: the server is guarded as its worker is.
"""

from __future__ import annotations

import fcntl
import os
import runpy
import signal
import sys
import threading
import traceback
from typing import Any, NoReturn

from harness.errors import HarnessError

_kept: list[Any] = []  # in the child: the parent's stdin and stdout objects, never dropped (see the module's docstring)


class ForkedServer:
    """A server forked from this process; ``to_server`` and ``from_server`` are this side's (non-blocking) pipe ends."""

    def __init__(self, script: str, args: list[str], env: dict[str, str]) -> None:
        if threading.active_count() != 1:  # a fork copies only the calling thread: a lock another one held stays held
            raise HarnessError(f"a server is forked from a process of one thread; this one has {threading.active_count()}")
        stdin_r, self.to_server = os.pipe()
        self.from_server, stdout_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:
            _serve(script, args, env, stdin_r, stdout_w, (self.to_server, self.from_server))
        os.close(stdin_r)
        os.close(stdout_w)
        os.set_blocking(self.to_server, False)
        os.set_blocking(self.from_server, False)
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """The server's exit status once it has exited (a signal's death as its negative number), else None."""
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> int:
        """End a server that would not exit, and reap it."""
        if self.returncode is None:
            os.kill(self.pid, signal.SIGKILL)
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.returncode


def _serve(script: str, args: list[str], env: dict[str, str], stdin_r: int, stdout_w: int, parent_ends: tuple[int, int]) -> NoReturn:
    """The child: ``script`` as ``__main__`` with stdin and stdout on the pipes, then ``os._exit`` with its status."""
    code = 1
    try:
        for fd in parent_ends:
            os.close(fd)
        moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, 3) for fd in (stdin_r, stdout_w)]  # clear of 0 and 1, whatever they were
        for fd in (stdin_r, stdout_w):
            os.close(fd)
        for fd, target in zip(moved, (0, 1), strict=True):
            os.dup2(fd, target)
            os.close(fd)
        _kept.extend((sys.stdin, sys.stdout))
        sys.stdin = open(0, encoding="utf-8", closefd=False)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
        sys.argv = [script, *args]
        os.environ.update(env)
        runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as exc:  # the script's sys.exit(main()), or argparse's refusal
        code = _exit_status(exc.code)
    except BaseException:  # what the interpreter would print before exiting with 1
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # nothing is left to tell: the status says it
                pass
        os._exit(code)


def _exit_status(code: object) -> int:
    """The exit status ``sys.exit(code)`` gives a program: None is 0, an integer itself, anything else printed and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1
