"""The sandbox around every column process, the runner's part: a cleaned environment, and the guard's log read back.

Columns run as ``python -I`` (no ``PYTHONPATH``, no user site) with an environment that
holds nothing of the caller's but a minimal PATH: no API keys, and every framework's
tracing and telemetry switched off. Inside, an audit hook (``harness.column_side.network_guard``)
refuses (``PermissionError``) every connection, datagram, bind and name or address lookup beyond
loopback, UDP and TCP to loopback ports neither the runner's nor the process's own, raw and packet
sockets, ``ctypes`` lookups of what starts a program or reaches the network, and every start of
another program or replacement of the process (``os.fork`` stays allowed: the harness forks its own
workers) unless it runs one of ``ALLOWED_PROGRAMS``. Each attempt it sees, allowed or refused, is
appended once to a JSON-lines log as ``["refused", what]`` or ``["allowed", what]``, so a framework
that phones home or shells out is a finding in the evidence (``network_refused``, beside
``network_allowed``), never a silent call. ``what`` is deterministic: no pids, no ephemeral ports,
and of a program or a socket path only names, with absolute paths relative to the repository when
under it and reduced to their last part otherwise (no temporary directory).

The guard is a tripwire inside the process it watches (its module says what can still get past
it); no kernel boundary (network namespace, firewall rule) is set up.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import HarnessError
from harness.records import IMPORT_PHASE
from harness.runner_side.run.users import read_column_file

# What the runner records when the column's log is not what its guard writes: the guard runs inside the
# column's process, so a column that got past it can replace its log (a FIFO, a link, other lines).
UNREADABLE_LOG = "(the guard's log is not a regular file the column wrote)"
FOREIGN_LINE = "(the guard's log holds a line the guard does not write)"

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
    """The whole environment a column process gets: nothing inherited but a minimal PATH. Its temporary files go to its
    own ``home`` too (``TMPDIR``), not to the machine's shared ``/tmp``, where a column could leave something for the
    next column given the same id to find."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "TMPDIR": str(home),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        **TELEMETRY_OFF,
    }


@dataclass(frozen=True)
class NetworkAttempts:
    """What a column's guard saw, each list distinct and sorted (deterministic for the evidence)."""

    allowed: list[str] = field(default_factory=list)
    """Attempts let through: the harness's own programs, loopback and AF_UNIX connections, loopback lookups."""
    refused: list[str] = field(default_factory=list)
    """Attempts refused with ``PermissionError``; and UNREADABLE_LOG or FOREIGN_LINE when the log was tampered with."""

    by_mode: dict[str, NetworkAttempts] = field(default_factory=dict)
    """The same per mode the column played (the attempts before its first mode, its import, in every one): what the
    evidence records per mode, so a run of one mode replaces that mode's alone."""

    def merged(self, other: NetworkAttempts) -> NetworkAttempts:
        """Both processes' attempts (one column run in two processes, each of some of its modes)."""
        return union([self, other], {**self.by_mode, **other.by_mode})

    def to_json(self) -> dict[str, list[str]]:
        return {"allowed": self.allowed, "refused": self.refused}


def union(parts: Iterable[NetworkAttempts], by_mode: dict[str, NetworkAttempts] | None = None) -> NetworkAttempts:
    """Every attempt of ``parts``, each list distinct and sorted."""
    parts = list(parts)
    return NetworkAttempts(sorted({a for p in parts for a in p.allowed}), sorted({r for p in parts for r in p.refused}), dict(sorted((by_mode or {}).items())))


def network_attempts(log_path: Path, modes: Iterable[str] = ()) -> NetworkAttempts:
    """The guard's log read back: distinct allowed and refused attempts, sorted (none when there is no log), in all and
    per mode of ``modes``."""
    modes = list(modes)
    try:
        text = read_column_file(log_path)
    except FileNotFoundError:
        text = ""
    except (HarnessError, UnicodeDecodeError):
        text = json.dumps(["refused", UNREADABLE_LOG, IMPORT_PHASE])
    seen: dict[str, tuple[set[str], set[str]]] = {}
    for line in filter(None, text.splitlines()):
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        if not (isinstance(entry, list) and len(entry) == 3 and entry[0] in ("allowed", "refused") and all(isinstance(e, str) for e in entry[1:])):
            entry = ["refused", FOREIGN_LINE, IMPORT_PHASE]
        allowed, refused = seen.setdefault(entry[2] if entry[2] in modes else IMPORT_PHASE, (set(), set()))
        (allowed if entry[0] == "allowed" else refused).add(entry[1])
    common = seen.get(IMPORT_PHASE, (set(), set()))
    by_mode = {m: NetworkAttempts(sorted(common[0] | seen.get(m, common)[0]), sorted(common[1] | seen.get(m, common)[1])) for m in modes}
    return union([NetworkAttempts(sorted(a), sorted(r)) for a, r in seen.values()], by_mode)


def refused_attempts(log_path: Path) -> list[str]:
    """Distinct refused attempts, sorted."""
    return network_attempts(log_path).refused


def allowed_attempts(log_path: Path) -> list[str]:
    """Distinct allowed attempts, sorted."""
    return network_attempts(log_path).allowed
