"""Line tracing of a column process, for the glue coverage check (``harness.runner_side.run.glue_coverage``).

A ``LineRecorder`` makes the workers this process forks while it is recording (and the threads they
start) record every line they run in a function of a file under the traced folder: each new
``<line>\\t<file>`` is appended at once (one ``write`` on an append-only descriptor), because a worker
killed by a fault ends with ``os._exit`` and must lose nothing. Only function bodies are traced: module
and class bodies run once, at import, in every mode alike (a ``def`` line defines, it does not run the glue).

Only forked workers record, never the process that owns the recorder: the driver plays every step in
a worker forked from the column process, and the one thing a worker runs under ``adapters/`` is the
column's ``perform`` (the framework playing that step). What the column process runs itself (the
import, ``prepare``, ``schedules``, and the ``facts``, ``detail`` and explanations it computes from a
finished run) is not the framework playing a step, so it is not recorded. The tracer is installed in
the worker only, so a worker forked while the recorder is off (the first run of ``--check``) runs at full speed.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from harness.records import DEFAULTS_NEVER_REACHES as DECLARATION

Tracer = Callable[[FrameType, str, Any], Any]


class LineRecorder:
    """Records, into the file last given to ``record_into``, the lines under ``folder`` that forked workers run."""

    def __init__(self, folder: str | Path) -> None:
        self._prefix = os.path.join(os.path.realpath(folder), "")
        self._target: str | None = None
        self._tracing = False  # true in a worker that traces: a worker it forks inherits the tracer and the file
        os.register_at_fork(after_in_child=self._start)

    def record_into(self, out: str | Path | None) -> None:
        """Workers forked from now on record into ``out`` (appended to); ``None``: they do not record."""
        self._target = None if out is None else str(out)

    def _start(self) -> None:
        if self._tracing or self._target is None:
            return
        self._tracing = True
        descriptor = os.open(self._target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        seen: set[tuple[str, int]] = set()  # a worker forked from this one inherits what it already wrote
        traced: dict[CodeType, bool] = {}
        prefix = self._prefix

        def lines(frame: FrameType, event: str, arg: Any) -> Tracer:
            if event == "line" and frame.f_lineno is not None:
                key = (frame.f_code.co_filename, frame.f_lineno)
                if key not in seen:
                    seen.add(key)
                    os.write(descriptor, f"{key[1]}\t{key[0]}\n".encode())
            return lines

        def calls(frame: FrameType, event: str, arg: Any) -> Tracer | None:
            code = frame.f_code
            wanted = traced.get(code)
            if wanted is None:
                function = bool(code.co_flags & inspect.CO_OPTIMIZED)  # not a module or class body
                wanted = traced[code] = function and os.path.realpath(code.co_filename).startswith(prefix)
            return lines if wanted else None

        threading.settrace(calls)
        sys.settrace(calls)


def install(out: str | Path, folder: str | Path) -> LineRecorder:
    """Record into ``out`` the lines run under ``folder`` by every process forked from this one later."""
    recorder = LineRecorder(folder)
    recorder.record_into(out)
    return recorder


def write_declared(out: str, entry: str) -> None:
    """In the column process: the column class's ``defaults_never_reaches`` (``{}`` without one), as JSON into ``out``."""
    module, _, name = entry.partition(":")
    declared = getattr(getattr(importlib.import_module(module), name or "Column"), DECLARATION, {})
    if not isinstance(declared, dict) or not all(isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in declared.items()):
        raise TypeError(f"{entry}.{DECLARATION} must map '<file>:<function>' to the reason defaults never reaches it")
    Path(out).write_text(json.dumps(declared), encoding="utf-8")
