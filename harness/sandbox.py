"""The sandbox around every column process: a cleaned environment and a network guard.

Columns run as ``python -I`` (no ``PYTHONPATH``, no user site) with an environment that
holds nothing of the caller's but a minimal PATH: no API keys, and every framework's
tracing and telemetry switched off. Inside, an audit hook refuses any connection that
is not to loopback and records the attempt, so a framework that phones home is a
finding in the evidence, never a silent call.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import sys
from pathlib import Path
from typing import Any

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


def _is_loopback_host(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if host is None or host == "localhost":
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def install_network_guard(log_path: Path) -> None:
    """Refuse every non-loopback connection or name lookup in this process and its forks,
    appending each refused attempt to ``log_path`` (a worker's memory dies with it)."""

    def refuse(what: str) -> None:
        with open(log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps(what) + "\n")
        raise PermissionError(f"the harness sandbox refuses network access: {what}")

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "socket.connect":
            sock, address = args
            if sock.family == socket.AF_UNIX:
                return
            host = address[0] if isinstance(address, tuple) else address
            if not _is_loopback_host(host):
                refuse(f"connect {host}:{address[1] if isinstance(address, tuple) and len(address) > 1 else ''}")
        elif event == "socket.getaddrinfo":
            if not _is_loopback_host(args[0]):
                refuse(f"resolve {args[0]!r}")

    sys.addaudithook(hook)


def refused_attempts(log_path: Path) -> list[str]:
    """Distinct refused attempts, sorted (deterministic for the evidence)."""
    if not log_path.exists():
        return []
    return sorted({json.loads(line) for line in log_path.read_text(encoding="utf-8").splitlines() if line})
