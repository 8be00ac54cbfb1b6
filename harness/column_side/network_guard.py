"""The network guard of a column process: an audit hook installed before any framework is imported.

It refuses (``PermissionError``) every connection, datagram and name or address lookup that is not
loopback or AF_UNIX, and every start of another program or replacement of the process (``os.fork``
stays allowed: the harness forks its own workers) unless it runs one of ``ALLOWED_PROGRAMS``, and
appends each attempt to a JSON-lines log as ``["refused", what]`` or ``["allowed", what]`` (read by
``harness.runner_side.sandbox``). ``what`` is deterministic: no pids, and of a program only its
name and its arguments, with absolute paths relative to the repository when under it and reduced
to their last part otherwise.

Audit hooks see what CPython reports: a hostname inside a connect or sendto address is resolved
before the event is raised (the connection itself is still refused).
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import shlex
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.columns import ROOT

# The harness's own programs a column may start (a framework's stdio MCP client starting
# the harness's MCP server): absolute paths of scripts in this repository.
ALLOWED_PROGRAMS: tuple[Path, ...] = (ROOT / "scripts" / "serve_mcp.py",)

# CPython raises no audit event in _posixsubprocess.fork_exec, which multiprocessing's
# spawn and forkserver start methods and its resource tracker call directly; the guard
# wraps it to raise this one (subprocess.Popen raises its own event before calling it).
FORK_EXEC_EVENT = "harness.fork_exec"


def _is_loopback_host(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if host is None or str(host).lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def _remote_address(sock: Any, address: Any) -> str | None:
    """``host:port`` of a socket address off this machine; None for loopback, AF_UNIX or no address."""
    if address is None or getattr(sock, "family", None) == socket.AF_UNIX:
        return None
    host, port = (address[0], address[1]) if isinstance(address, tuple) and len(address) > 1 else (address, "")
    return None if _is_loopback_host(host) else f"{host}:{port}"


def _other_loopback_port(sock: Any, address: Any, ports: frozenset[int]) -> bool:
    """Whether a TCP connection goes to a loopback port not in ``ports``."""
    if getattr(sock, "family", None) not in (socket.AF_INET, socket.AF_INET6) or not (isinstance(address, tuple) and len(address) > 1):
        return False
    return _is_loopback_host(address[0]) and address[1] not in ports


def _remote_name(host: Any, *_: Any) -> str | None:
    """The quoted host name or address looked up, None for loopback."""
    return None if _is_loopback_host(host) else repr(host)


# audit event -> (verb recorded, what it reaches off this machine from the event's arguments, or None)
NETWORK_EVENTS: dict[str, tuple[str, Callable[..., str | None]]] = {
    "socket.connect": ("connect", _remote_address),  # (socket, address); connect_ex too
    "socket.sendto": ("sendto", _remote_address),  # (socket, address): UDP
    "socket.sendmsg": ("sendmsg", _remote_address),  # (socket, address or None)
    "socket.getaddrinfo": ("resolve", _remote_name),  # (host, port, family, type, protocol)
    "socket.gethostbyname": ("resolve", _remote_name),  # (hostname,): gethostbyname and gethostbyname_ex
    "socket.gethostbyaddr": ("reverse-resolve", _remote_name),  # (ip_address,)
    "socket.getnameinfo": ("reverse-resolve", lambda sockaddr: _remote_name(sockaddr[0])),  # (sockaddr,)
}

# audit event -> (verb recorded, (program, argv) from the event's arguments). An allowed
# subprocess.Popen goes on to posix_spawn or fork_exec: the same line, recorded once.
PROGRAM_EVENTS: dict[str, tuple[str, Callable[..., tuple[Any, Any]]]] = {
    "subprocess.Popen": ("subprocess", lambda executable, args, cwd, env: (executable, args)),
    "os.posix_spawn": ("subprocess", lambda path, argv, env: (path, argv)),  # posix_spawnp too
    "os.spawn": ("subprocess", lambda mode, path, args, env: (path, args)),  # on POSIX os.spawn* forks and raises os.exec
    FORK_EXEC_EVENT: ("subprocess", lambda args, executables: (executables[0], args)),
    "os.exec": ("exec", lambda path, args, env: (path, args)),
    "os.system": ("system", lambda command: ("/bin/sh", ["sh", "-c", command])),
}

_ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~-])/[^\s'\"=:,;]*")


def _shown(word: str) -> str:
    """A word as recorded: every absolute path in it relative to ROOT when under it, else its name."""

    def short(match: re.Match[str]) -> str:
        path = Path(match.group())
        return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name or "/"

    return _ABSOLUTE_PATH.sub(short, word)


def _command(program: Any, argv: Any) -> str:
    """The program's name and its arguments, shell-quoted, paths shortened."""
    return shlex.join([Path(os.fsdecode(program)).name, *(_shown(os.fsdecode(word)) for word in list(argv)[1:])])


def allowed_program(program: Any, argv: Any) -> bool:
    """Whether a start runs one of ALLOWED_PROGRAMS: the program itself, or the script a
    Python interpreter is given (its first argument that is not an option)."""
    words = [os.fsdecode(program), *(os.fsdecode(word) for word in list(argv)[1:])]
    if Path(words[0]).name.startswith("python"):
        words = [word for word in words[1:] if not word.startswith("-")]
    return bool(words) and Path(words[0]).resolve() in ALLOWED_PROGRAMS


def _audit_fork_exec() -> None:
    """Make ``_posixsubprocess.fork_exec`` raise FORK_EXEC_EVENT before it starts anything."""
    import _posixsubprocess

    fork_exec = _posixsubprocess.fork_exec

    def audited(args: Any, executables: Any, *rest: Any) -> Any:
        sys.audit(FORK_EXEC_EVENT, args, executables)
        return fork_exec(args, executables, *rest)

    _posixsubprocess.fork_exec = audited


def install_network_guard(log_path: Path, loopback_ports: frozenset[int] | None = None) -> None:
    """Guard this process and its forks (irreversibly): refuse every non-loopback connection,
    datagram or lookup and every program start or exec not of ALLOWED_PROGRAMS, appending
    each attempt, refused or allowed, to ``log_path`` (a worker's memory dies with it). With
    ``loopback_ports`` (the wire mode: the runner's scripted server), a TCP connection on loopback
    is allowed to those ports only (recorded without the port, which is ephemeral)."""

    def record(verdict: str, what: str) -> None:
        with open(log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps([verdict, what]) + "\n")

    def refuse(what: str) -> None:
        record("refused", what)
        raise PermissionError(f"the harness sandbox refuses {what}")

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in NETWORK_EVENTS:
            verb, remote = NETWORK_EVENTS[event]
            if (where := remote(*args)) is not None:
                refuse(f"{verb} {where}")
            if event == "socket.connect" and loopback_ports is not None and _other_loopback_port(args[0], args[1], loopback_ports):
                refuse("connect to a loopback port other than the scripted model server's")
        elif event in PROGRAM_EVENTS:
            verb, parts = PROGRAM_EVENTS[event]
            program, argv = parts(*args)
            what = f"{verb} {_command(program, argv)}"
            if not allowed_program(program, argv):
                refuse(what)  # raises
            record("allowed", what)

    sys.addaudithook(hook)
    _audit_fork_exec()


