"""The network guard of a column process: an audit hook installed before any framework is imported.

It refuses (``PermissionError``), and appends to a JSON-lines log as ``["refused", what]``:
- a connection, datagram or name or address lookup off this machine, and a socket bound to an
  address other than loopback (listening beyond the machine);
- on loopback, UDP (or any datagram) to any port, and TCP to a port that is neither one the runner
  serves (``loopback_ports``: the wire mode's scripted model server) nor one this process bound
  (a probe's stub server, a forked worker's parent's);
- a raw or packet socket, and a socket of any family but AF_UNIX, AF_INET and AF_INET6;
- a start of another program or replacement of the process (``os.fork`` stays allowed: the harness
  forks its own workers) unless it runs one of ``ALLOWED_PROGRAMS``: through ``subprocess``,
  ``os.posix_spawn``, ``os.exec*``, ``os.system`` or ``_posixsubprocess.fork_exec`` (multiprocessing's
  and ``subprocess._fork_exec``, bound at import: the guard wraps every reference it finds);
- ``ctypes`` looking up a symbol that starts a program or reaches the network (``system``, ``execv``,
  ``posix_spawn``, ``syscall``, ``connect``, ``sendto``, ``socket``, ``dlsym``, ...: CTYPES_REFUSED, in
  any library and under glibc's ``__libc_``/``__``/``_IO_`` aliases), or calling one by its address
  through ``_ctypes.call_function`` (the addresses are taken from the process's own symbols at install).

What it lets through it records as ``["allowed", what, mode]``: the start of a harness program, an
AF_UNIX connection or datagram, a TCP connection to a loopback port the runner serves or to a loopback
address and port this process listens on, a loopback bind, a loopback lookup (``mode``: the mode the
column was playing, ``import`` before the first). An ordinary socket's creation
and ctypes' other lookups and calls are no attempt at either, and are not recorded. Each distinct
line is written once per process (a fork inherits what its parent wrote). ``what`` is deterministic:
no pids, no ephemeral ports (shown as ``(ephemeral port)``), and of a program or a socket path only
names, with absolute paths relative to the repository when under it and reduced to their last part
otherwise (no temporary directory). ``harness.runner_side.run.sandbox`` reads the log back.

It is a tripwire inside the process it watches, not a boundary: audit hooks see what CPython reports
(a hostname inside a connect or sendto address is resolved before the event is raised, though the
connection itself is still refused; a ctypes function pointer made from an address, ``CFUNCTYPE(...)(address)``,
is called without any event), and code that writes memory through ctypes, reaches the original
``fork_exec`` through the wrapper's closure, builds a fresh ``_posixsubprocess`` module or loads a native
library that acts on its own can still get past it. The kernel (a network namespace, a firewall rule on
the column's user) would be the boundary; the harness does not set one up.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import os
import re
import shlex
import socket
import sys
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.columns import ROOT
from harness.records import IMPORT_PHASE

# The harness's own programs a column may start (a framework's stdio MCP client starting
# the harness's MCP server, or in the mcp mode the relay to the runner's): absolute paths of scripts in this repository.
ALLOWED_PROGRAMS: tuple[Path, ...] = (ROOT / "scripts" / "serve_mcp.py", ROOT / "scripts" / "mcp_stdio_relay.py")

# CPython raises no audit event in _posixsubprocess.fork_exec, which subprocess (bound at its
# import as subprocess._fork_exec) and multiprocessing's spawn and forkserver start methods and
# its resource tracker call; the guard wraps it to raise this one (subprocess.Popen raises its
# own event before calling it).
FORK_EXEC_EVENT = "harness.fork_exec"

# libc's symbols that start a program or reach the network, and dlsym (which would find them
# unchecked): refused to ctypes whatever library it looks them up in. os.fork stays allowed,
# and so does ctypes' fork: a fork starts no other program (its exec would be refused).
CTYPES_REFUSED: frozenset[str] = frozenset({
    "system", "popen", "execl", "execle", "execlp", "execv", "execve", "execveat", "execvp", "execvpe", "fexecve",
    "posix_spawn", "posix_spawnp", "syscall",
    "socket", "connect", "sendto", "sendmsg", "sendmmsg",
    "getaddrinfo", "gethostbyname", "gethostbyname_r", "gethostbyname2", "gethostbyname2_r", "gethostbyaddr",
    "gethostbyaddr_r", "getnameinfo", "res_query", "res_search", "res_querydomain", "res_send",
    "res_nquery", "res_nsearch", "res_nquerydomain", "res_nsend",
    "dlsym", "dlvsym",
})  # fmt: skip

_SYMBOL_ALIAS = re.compile(r"^(?:__libc_|_IO_|_+)")  # glibc's aliases: __libc_system, __execve, _IO_popen


def _symbol(name: str) -> str:
    """A looked-up name without glibc's alias prefixes."""
    return _SYMBOL_ALIAS.sub("", name)


def _endpoints(host: Any, port: Any) -> set[tuple[str, int]]:
    """A loopback address and port as compared: the address in its canonical text (``localhost`` as both loopbacks)."""
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(port, int):
        return set()
    if str(host).lower() == "localhost":
        return {("127.0.0.1", port), ("::1", port)}
    try:
        return {(str(ipaddress.ip_address(str(host).split("%")[0])), port)}
    except ValueError:
        return set()


def _is_loopback_host(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if host is None or str(host).lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def _remote_name(host: Any, *_: Any) -> str | None:
    """The quoted host name or address looked up, None for loopback."""
    return None if _is_loopback_host(host) else repr(host)


# audit event -> (verb recorded, the host looked up or None for loopback, from the event's arguments)
LOOKUP_EVENTS: dict[str, tuple[str, Callable[..., str | None]]] = {
    "socket.getaddrinfo": ("resolve", _remote_name),  # (host, port, family, type, protocol)
    "socket.gethostbyname": ("resolve", _remote_name),  # (hostname,): gethostbyname and gethostbyname_ex
    "socket.gethostbyaddr": ("reverse-resolve", _remote_name),  # (ip_address,)
    "socket.getnameinfo": ("reverse-resolve", lambda sockaddr: _remote_name(sockaddr[0])),  # (sockaddr,)
}

# audit event -> verb recorded; each event's arguments are (socket, address), address None for
# a sendmsg on a connected socket (whose connect was the attempt)
SEND_EVENTS: dict[str, str] = {"socket.connect": "connect", "socket.sendto": "sendto", "socket.sendmsg": "sendmsg"}

# Every event through which a process reaches an address or a name.
NETWORK_EVENTS: frozenset[str] = frozenset(SEND_EVENTS) | frozenset(LOOKUP_EVENTS)

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
_INTERNET = (socket.AF_INET, socket.AF_INET6)


def _short(path: str) -> str:
    """An absolute path as recorded: relative to ROOT when under it, else its last part."""
    return str(Path(path).relative_to(ROOT)) if Path(path).is_relative_to(ROOT) else Path(path).name or "/"


def _shown(word: str) -> str:
    """A word as recorded: every absolute path in it shortened (``_short``)."""
    return _ABSOLUTE_PATH.sub(lambda match: _short(match.group()), word)


def _command(program: Any, argv: Any) -> str:
    """The program's name and its arguments, shell-quoted, paths shortened."""
    return shlex.join([Path(os.fsdecode(program)).name, *(_shown(os.fsdecode(word)) for word in list(argv)[1:])])


def _unix_name(address: Any) -> str:
    """An AF_UNIX address as recorded: a path shortened, an abstract name after ``@``."""
    name = os.fsdecode(address) if isinstance(address, (str, bytes)) else str(address)
    if not name:
        return "(unnamed)"
    return "@" + name[1:] if name.startswith("\0") else _short(os.path.abspath(name))


def _name(enum: Any, value: int, prefix: str) -> str:
    """``AF_PACKET`` -> ``packet``, ``SOCK_RAW`` -> ``raw``; an unknown number as itself."""
    try:
        return str(enum(value).name).removeprefix(prefix).lower()
    except ValueError:
        return str(value)


def allowed_program(program: Any, argv: Any) -> bool:
    """Whether a start runs one of ALLOWED_PROGRAMS: the program itself, or the script a
    Python interpreter is given (its first argument that is not an option)."""
    words = [os.fsdecode(program), *(os.fsdecode(word) for word in list(argv)[1:])]
    if Path(words[0]).name.startswith("python"):
        words = [word for word in words[1:] if not word.startswith("-")]
    return bool(words) and Path(words[0]).resolve() in ALLOWED_PROGRAMS


def _audit_fork_exec() -> None:
    """Make ``_posixsubprocess.fork_exec`` raise FORK_EXEC_EVENT before it starts anything, wherever a module
    already imported holds it (``subprocess._fork_exec``) and wherever one imported later takes it from."""
    import _posixsubprocess

    fork_exec = _posixsubprocess.fork_exec

    def audited(args: Any, executables: Any, *rest: Any) -> Any:
        sys.audit(FORK_EXEC_EVENT, args, executables)
        return fork_exec(args, executables, *rest)

    for module in list(sys.modules.values()):
        try:  # past any __getattr__ of the module's class: a lazy module is not loaded by the look
            namespace = object.__getattribute__(module, "__dict__")
        except AttributeError:  # a module-like object without one (cffi's Lib)
            continue
        if isinstance(namespace, dict):
            for name in [name for name, value in namespace.items() if value is fork_exec]:
                namespace[name] = audited


def _refused_addresses() -> dict[int, str]:
    """Where each of CTYPES_REFUSED (and its glibc aliases) lives in this process: a call by address to one
    of them (``_ctypes.call_function``) is refused however the address was had."""
    import ctypes

    process, addresses = ctypes.CDLL(None), {}
    for symbol in sorted(CTYPES_REFUSED):
        for name in (symbol, f"__{symbol}", f"__libc_{symbol}", f"_IO_{symbol}"):
            try:
                address = ctypes.cast(process[name], ctypes.c_void_p).value
            except AttributeError:  # not in this libc
                continue
            if address:
                addresses[address] = symbol
    return addresses


def _ephemeral_start() -> int:
    """The lowest port the kernel hands out for a bind to port 0 (Linux's default when unreadable)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


Verdict = tuple[bool, str] | None  # (allowed, what) of an attempt; None: no attempt to record


class _Guard:
    """The audit hook: each watched event's verdict, recorded once, a refusal raised."""

    def __init__(self, log_path: Path, loopback_ports: frozenset[int]) -> None:
        self.log_path, self.loopback_ports = log_path, loopback_ports
        self.refused_calls = _refused_addresses()
        self.ephemeral = _ephemeral_start()
        self.bound: weakref.WeakSet[socket.socket] = weakref.WeakSet()  # loopback sockets this process bound
        self.written: set[tuple[bool, str, str]] = set()
        self.handlers: dict[str, Callable[..., Verdict]] = {
            "socket.__new__": self.creation,
            "socket.bind": self.bind,
            "ctypes.dlsym": self.lookup,  # (library, name): CDLL attributes and items, prototypes called with (name, library)
            "ctypes.dlsym/handle": self.lookup,  # (handle, name): _ctypes.dlsym
            "ctypes.call_function": self.call,  # (address, arguments): _ctypes.call_function, not a function pointer's call
            **{event: functools.partial(self.send, verb) for event, verb in SEND_EVENTS.items()},
            **{event: functools.partial(self.name_lookup, event) for event in LOOKUP_EVENTS},
            **{event: functools.partial(self.program, event) for event in PROGRAM_EVENTS},
        }

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        handler = self.handlers.get(event)
        if handler is None or (verdict := handler(*args)) is None:
            return
        allowed, what = verdict
        if (allowed, what, _phase) not in self.written:  # a worker's memory dies with it: written before the refusal raises
            self.written.add((allowed, what, _phase))
            with open(self.log_path, "a", encoding="utf-8") as log:
                log.write(json.dumps(["allowed" if allowed else "refused", what, _phase]) + "\n")
        if not allowed:
            raise PermissionError(f"the harness sandbox refuses {what}")

    def port(self, port: Any) -> str:
        """A loopback port as recorded: a fixed one as its number, one the kernel picked (or will) without it."""
        if port == 0:
            return "(a port the system picks)"
        return "(ephemeral port)" if isinstance(port, int) and port >= self.ephemeral else str(port)

    def creation(self, sock: Any, family: int, kind: int, proto: int) -> Verdict:
        kind &= 0xF  # without SOCK_NONBLOCK and SOCK_CLOEXEC
        if family in (-1, socket.AF_UNIX, *_INTERNET) and kind != socket.SOCK_RAW:  # -1: a socket around a given fileno
            return None
        return False, f"socket {_name(socket.AddressFamily, family, 'AF_')} {_name(socket.SocketKind, kind, 'SOCK_')}"

    def bind(self, sock: Any, address: Any) -> Verdict:
        family = getattr(sock, "family", None)
        if family == socket.AF_UNIX:
            return True, f"bind unix {_unix_name(address)}"
        if family not in _INTERNET or not isinstance(address, tuple):
            return None
        if not _is_loopback_host(address[0]):
            return False, f"bind {address[0] or '(every address)'}:{address[1]}"  # '' is INADDR_ANY
        try:
            self.bound.add(sock)
        except TypeError:  # a bare _socket.socket takes no weak reference: its port counts as another's
            pass
        return True, f"bind loopback {self.protocol(sock)} {self.port(address[1])}"

    def send(self, verb: str, sock: Any, address: Any) -> Verdict:
        family = getattr(sock, "family", None)
        if address is None:  # sendmsg on a connected socket: its connect was the attempt
            return None
        if family == socket.AF_UNIX:
            return True, f"{verb} unix {_unix_name(address)}"
        if family not in _INTERNET:
            return False, f"{verb} {_name(socket.AddressFamily, family, 'AF_') if isinstance(family, int) else family}"
        host, port = (address[0], address[1]) if isinstance(address, tuple) and len(address) > 1 else (address, "")
        if not _is_loopback_host(host):
            return False, f"{verb} {host}:{port}"
        protocol = self.protocol(sock)
        if protocol == "tcp" and port in self.loopback_ports:
            return True, f"{verb} loopback tcp (a port the runner serves)"
        if protocol == "tcp" and _endpoints(host, port) & self.own_listeners():
            return True, f"{verb} loopback tcp (a port this process bound)"
        return False, f"{verb} loopback {protocol} {self.port(port)}"

    @staticmethod
    def protocol(sock: Any) -> str:
        kind = getattr(sock, "type", None)
        if kind == socket.SOCK_STREAM:
            return "tcp"
        if kind == socket.SOCK_DGRAM:
            return "udp"
        return _name(socket.SocketKind, kind, "SOCK_") if isinstance(kind, int) else str(kind)

    def own_listeners(self) -> set[tuple[str, int]]:
        """The (address, port) of every loopback TCP socket this process (or the one it forked from) bound and listens
        on, still open: a connection may go to exactly one of those, not to another address on the same port (a socket
        bound to ``127.0.0.2:P`` or ``[::1]:P`` must not open ``127.0.0.1:P``, another program's)."""
        endpoints = set()
        for sock in list(self.bound):
            try:
                if sock.type == socket.SOCK_STREAM and sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
                    address, port = sock.getsockname()[:2]
                    endpoints |= _endpoints(address, port)
            except OSError:  # closed
                continue
        return endpoints

    def name_lookup(self, event: str, *args: Any) -> Verdict:
        verb, remote = LOOKUP_EVENTS[event]
        if (where := remote(*args)) is not None:
            return False, f"{verb} {where}"
        host = args[0][0] if event == "socket.getnameinfo" else args[0]
        return True, f"{verb} {host!r}"

    def program(self, event: str, *args: Any) -> Verdict:
        verb, parts = PROGRAM_EVENTS[event]
        program, argv = parts(*args)
        return allowed_program(program, argv), f"{verb} {_command(program, argv)}"

    def lookup(self, library: Any, name: Any) -> Verdict:
        if isinstance(name, bytes):
            name = name.decode("ascii", "replace")
        return (False, f"ctypes-lookup {name}") if isinstance(name, str) and _symbol(name) in CTYPES_REFUSED else None

    def call(self, address: int, arguments: Any) -> Verdict:
        symbol = self.refused_calls.get(address)
        return (False, f"ctypes-call {symbol}") if symbol is not None else None


_phase = IMPORT_PHASE


def set_phase(mode: str) -> None:
    """Tag the attempts from now on (in this process and the workers it forks later) with the mode the column plays:
    the evidence lists each mode's attempts, so a run of one mode replaces that mode's alone. Attempts before the first
    mode (the framework's import) are tagged ``import`` and count in every mode."""
    global _phase
    _phase = mode


def install_network_guard(log_path: Path, loopback_ports: frozenset[int] | None = None) -> None:
    """Guard this process and its forks (irreversibly) as the module says, appending each attempt, refused or
    allowed, to ``log_path`` once. ``loopback_ports``: the ports of the runner's servers on loopback this
    process may reach over TCP (the wire mode's scripted model server), recorded without the port (ephemeral)."""
    guard = _Guard(log_path, loopback_ports or frozenset())  # takes ctypes' addresses before the hook watches ctypes
    sys.addaudithook(guard)
    _audit_fork_exec()
