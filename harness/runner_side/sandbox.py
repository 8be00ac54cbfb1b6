"""The sandbox around every column process, the runner's part: a cleaned environment, and the guard's log read back.

Columns run as ``python -I`` (no ``PYTHONPATH``, no user site) with an environment that
holds nothing of the caller's but a minimal PATH: no API keys, and every framework's
tracing and telemetry switched off. Inside, an audit hook (``harness.column_side.network_guard``) refuses (``PermissionError``)
every connection, datagram and name or address lookup that is not loopback or AF_UNIX,
and every start of another program or replacement of the process (``os.fork`` stays
allowed: the harness forks its own workers) unless it runs one of ``ALLOWED_PROGRAMS``.
Each attempt is appended to a JSON-lines log as ``["refused", what]`` or
``["allowed", what]``, so a framework that phones home or shells out is a finding in the
evidence, never a silent call. ``what`` is deterministic: no pids, and of a program only
its name and its arguments, with absolute paths relative to the repository when under it
and reduced to their last part otherwise (no temporary directory).

Audit hooks see what CPython reports: a hostname inside a connect or sendto address is
resolved before the event is raised (the connection itself is still refused).
"""

from __future__ import annotations

import json
from pathlib import Path

TELEMETRY_OFF = {
    "LANGSMITH_TRACING": "false",
    "LANGCHAIN_TRACING_V2": "false",
    "LANGCHAIN_TRACING": "false",
    "LANGSMITH_OTEL_ENABLED": "false",
    "OPENAI_AGENTS_DISABLE_TRACING": "1",
    "OTEL_SDK_DISABLED": "true",
    "OTEL_TRACES_EXPORTER": "none",
    "OTEL_METRICS_EXPORTER": "none",
    "OTEL_LOGS_EXPORTER": "none",
    "DO_NOT_TRACK": "1",
    "ANONYMIZED_TELEMETRY": "False",
    "HF_HUB_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "SCARF_NO_ANALYTICS": "true",
}

def clean_environment(home: Path) -> dict[str, str]:
    """The whole environment a column process gets: nothing inherited but a minimal PATH."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        **TELEMETRY_OFF,
    }


def _recorded(log_path: Path, verdict: str) -> list[str]:
    if not log_path.exists():
        return []
    entries = (json.loads(line) for line in log_path.read_text(encoding="utf-8").splitlines() if line)
    return sorted({what for kind, what in entries if kind == verdict})


def refused_attempts(log_path: Path) -> list[str]:
    """Distinct refused attempts, sorted (deterministic for the evidence)."""
    return _recorded(log_path, "refused")


def allowed_starts(log_path: Path) -> list[str]:
    """Distinct allowed starts of the harness's own programs, sorted."""
    return _recorded(log_path, "allowed")
