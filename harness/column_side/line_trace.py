"""Line tracing of a column process, for the glue coverage check (``harness.runner_side.glue_coverage``).

``install`` makes the workers this process forks (and the threads they start) record every line
they run in a function of a file under the traced folder: each new ``<line>\\t<file>`` is appended
at once (one ``write`` on an append-only descriptor), because a worker killed by a fault ends with
``os._exit`` and must lose nothing. Only function bodies are traced: module and class bodies run
once, at import, in every mode alike (a ``def`` line defines, it does not run the glue).

Only forked workers record, never the process that calls ``install``: the driver plays every step in
a worker forked from the column process, and the one thing a worker runs under ``adapters/`` is the
column's ``perform`` (the framework playing that step). What the column process runs itself (the
import, ``prepare``, ``schedules``, and the ``facts``, ``detail`` and explanations it computes from a
finished run) is not the framework playing a step, so it is not recorded.
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

Tracer = Callable[[FrameType, str, Any], Any]


def install(out: str | Path, folder: str | Path) -> None:
    """Record into ``out`` the lines run under ``folder`` (resolved) by every process forked from this one later."""
    prefix = os.path.join(os.path.realpath(folder), "")
    descriptor = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    seen: set[tuple[str, int]] = set()  # a worker forked from a worker inherits what its parent already wrote
    traced: dict[CodeType, bool] = {}
    recording = [False]  # true in a forked child only: this process's own lines are not a step's
    os.register_at_fork(after_in_child=lambda: recording.__setitem__(0, True))

    def lines(frame: FrameType, event: str, arg: Any) -> Tracer:
        if event == "line" and frame.f_lineno is not None:
            key = (frame.f_code.co_filename, frame.f_lineno)
            if key not in seen:
                seen.add(key)
                os.write(descriptor, f"{key[1]}\t{key[0]}\n".encode())
        return lines

    def calls(frame: FrameType, event: str, arg: Any) -> Tracer | None:
        if not recording[0]:
            return None
        code = frame.f_code
        wanted = traced.get(code)
        if wanted is None:
            function = bool(code.co_flags & inspect.CO_OPTIMIZED)  # not a module or class body
            wanted = traced[code] = function and os.path.realpath(code.co_filename).startswith(prefix)
        return lines if wanted else None

    threading.settrace(calls)
    sys.settrace(calls)
