"""The network guard's known gaps, each once an escape that went through silently (issue 33).

Each test runs a ``python -I`` child that installs the guard as ``column_main`` does (the guard is
irreversible in the process that installs it) and then tries one way around it: a program started
through ``subprocess._fork_exec``, ``ctypes`` calling libc's ``system`` or ``connect``, UDP and TCP to
other loopback ports, a raw or packet socket. Each must be refused (``PermissionError``) and recorded
in the guard's log; the harness's own MCP server still starts, and its start is recorded as allowed.
The listeners and receivers the child aims at live in this (the test's) process, so nothing leaves
the machine even when the guard is broken.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.columns import ROOT

# The child: imports what a column process has imported before its guard (subprocess binds
# _fork_exec at import; ctypes), installs the guard, then runs ATTEMPTS and prints their outcomes.
CHILD = """
import ctypes, json, os, socket, subprocess, sys, types
sys.path.insert(0, sys.argv[1])
from pathlib import Path
log, ports, target = Path(sys.argv[2]), json.loads(sys.argv[3]), json.loads(sys.argv[4])
libc = ctypes.CDLL(None)
SYSTEM_ADDRESS = ctypes.cast(ctypes.CDLL(None).system, ctypes.c_void_p).value  # an address had some other way
early = types.ModuleType("early")  # a module that bound fork_exec before the guard, as subprocess does
from _posixsubprocess import fork_exec as _early_fork_exec
early.fork_exec = _early_fork_exec
sys.modules["early"] = early
from harness.column_side.network_guard import install_network_guard
install_network_guard(log, frozenset(ports) if ports else None)

def outcome(attempt):
    try:
        result = attempt()
    except PermissionError:
        return "refused"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return f"returned {result}"

def fork_exec(function, tag):
    read, write = os.pipe()
    try:
        pid = function(["true", tag], [b"/bin/true"], True, (), None, None, -1, -1, -1, -1, -1, -1, read, write,
                       False, False, -1, None, None, None, -1, None, subprocess._USE_VFORK)
    finally:
        os.close(read)
        os.close(write)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

def sockaddr_in(port):  # struct sockaddr_in for 127.0.0.1:port
    return (ctypes.c_ubyte * 16)(*((socket.AF_INET).to_bytes(2, sys.byteorder) + port.to_bytes(2, "big") + bytes([127, 0, 0, 1]) + bytes(8)))

def ctypes_connect(port):
    tcp = socket.socket()
    address = sockaddr_in(port)
    return libc.connect(tcp.fileno(), ctypes.byref(address), ctypes.sizeof(address))

def fresh_udp():
    return socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

def own_listener():  # a listener this process binds behind its guard (a probe's stub server)
    server = socket.create_server(("127.0.0.1", 0))
    socket.create_connection(server.getsockname()).close()
    server.close()

ATTEMPTS = {
    "subprocess._fork_exec": lambda: fork_exec(subprocess._fork_exec, "subprocess"),
    "_posixsubprocess.fork_exec bound early": lambda: fork_exec(early.fork_exec, "early"),
    "from _posixsubprocess import fork_exec": lambda: fork_exec(__import__("_posixsubprocess").fork_exec, "late"),
    "ctypes system": lambda: libc.system(b"true"),
    "ctypes __libc_system": lambda: ctypes.CDLL(None).__libc_system,
    "ctypes execv": lambda: libc.execv,
    "ctypes popen": lambda: libc.popen,
    "ctypes posix_spawn": lambda: libc.posix_spawn,
    "ctypes syscall": lambda: libc.syscall,
    "ctypes dlsym handle": lambda: __import__("_ctypes").dlsym(libc._handle, "system"),
    "ctypes prototype": lambda: ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p)(("system", libc)),
    "ctypes call_function": lambda: __import__("_ctypes").call_function(SYSTEM_ADDRESS, (b"true",)),
    "ctypes connect": lambda: ctypes_connect(target["tcp"]),
    "ctypes sendto": lambda: libc.sendto,
    "ctypes getpid": lambda: libc.getpid() > 0,
    "tcp connect": lambda: socket.create_connection(("127.0.0.1", target["tcp"])).close(),
    "own listener": own_listener,
    "udp sendto": lambda: fresh_udp().sendto(b"x", ("127.0.0.1", target["udp"])),
    "udp sendmsg": lambda: fresh_udp().sendmsg([b"x"], [], 0, ("127.0.0.1", target["udp"])),
    "udp connect": lambda: fresh_udp().connect(("127.0.0.1", target["udp"])),
    "udp sendto twice": lambda: fresh_udp().sendto(b"x", ("127.0.0.1", target["udp"])),
    "packet socket": lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW).close(),
    "raw socket": lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).close(),
    "bind every address": lambda: socket.socket().bind(("0.0.0.0", 0)),
    "serve_mcp.py": lambda: subprocess.run([sys.executable, "-I", str(Path(sys.argv[1]) / "scripts" / "serve_mcp.py"), "--help"],
                                           capture_output=True).returncode,
}
print(json.dumps({name: outcome(attempt) for name, attempt in ATTEMPTS.items()}))
"""

PYTHON = Path(sys.executable).name


@pytest.fixture(scope="module")
def targets() -> Iterator[dict[str, int]]:
    """A TCP listener and a UDP receiver on loopback ports of this process: another port, as far as the child goes."""
    with socket.create_server(("127.0.0.1", 0)) as tcp, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.bind(("127.0.0.1", 0))
        yield {"tcp": tcp.getsockname()[1], "udp": udp.getsockname()[1]}


def run_child(log: Path, targets: dict[str, int], ports: list[int] | None = None) -> dict[str, str]:
    done = subprocess.run([sys.executable, "-I", "-c", CHILD, str(ROOT), str(log), json.dumps(ports), json.dumps(targets)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    outcomes: dict[str, str] = json.loads(done.stdout)
    return outcomes


def logged(log: Path) -> list[tuple[str, str]]:
    """The guard's log as it was written: (verdict, what) lines in order (each also says the mode it came in)."""
    return [(verdict, what) for verdict, what, _ in map(json.loads, log.read_text(encoding="utf-8").splitlines())]


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory, targets: dict[str, int]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    log = tmp_path_factory.mktemp("guard") / "network.jsonl"
    outcomes = run_child(log, targets)
    return outcomes, logged(log)


def test_a_program_started_through_fork_exec_is_refused_and_recorded(guarded: tuple[dict[str, str], list[tuple[str, str]]]) -> None:
    outcomes, log = guarded
    assert [outcomes[name] for name in ("subprocess._fork_exec", "_posixsubprocess.fork_exec bound early", "from _posixsubprocess import fork_exec")] == ["refused"] * 3
    assert {("refused", f"subprocess true {tag}") for tag in ("subprocess", "early", "late")} <= set(log)


def test_ctypes_cannot_look_up_or_call_what_starts_a_program(guarded: tuple[dict[str, str], list[tuple[str, str]]]) -> None:
    outcomes, log = guarded
    names = ("system", "__libc_system", "execv", "popen", "posix_spawn", "syscall", "dlsym handle", "prototype", "call_function")
    assert {name: outcomes[f"ctypes {name}"] for name in names} == dict.fromkeys(names, "refused")
    assert outcomes["ctypes getpid"] == "returned True"  # ctypes itself stays usable
    assert {("refused", f"ctypes-lookup {symbol}") for symbol in ("system", "__libc_system", "execv", "popen", "posix_spawn", "syscall")} <= set(log)
    assert ("refused", "ctypes-call system") in log


def test_ctypes_cannot_connect_or_send(guarded: tuple[dict[str, str], list[tuple[str, str]]]) -> None:
    outcomes, log = guarded
    assert (outcomes["ctypes connect"], outcomes["ctypes sendto"]) == ("refused", "refused")
    assert {("refused", "ctypes-lookup connect"), ("refused", "ctypes-lookup sendto")} <= set(log)


def test_udp_to_a_loopback_port_is_refused_and_recorded_once(guarded: tuple[dict[str, str], list[tuple[str, str]]]) -> None:
    outcomes, log = guarded
    assert [outcomes[f"udp {verb}"] for verb in ("sendto", "sendmsg", "connect", "sendto twice")] == ["refused"] * 4
    udp = [entry for entry in log if "udp" in entry[1]]
    assert udp == [(("refused", f"{verb} loopback udp (ephemeral port)")) for verb in ("sendto", "sendmsg", "connect")]  # the second sendto: once


def test_tcp_to_another_loopback_port_is_refused_a_port_of_its_own_allowed(guarded: tuple[dict[str, str], list[tuple[str, str]]]) -> None:
    outcomes, log = guarded
    assert (outcomes["tcp connect"], outcomes["own listener"]) == ("refused", "returned None")
    assert ("refused", "connect loopback tcp (ephemeral port)") in log
    assert ("allowed", "connect loopback tcp (a port this process bound)") in log
    assert ("allowed", "bind loopback tcp (a port the system picks)") in log


def test_raw_and_packet_sockets_are_refused(guarded: tuple[dict[str, str], list[tuple[str, str]]]) -> None:
    outcomes, log = guarded
    assert (outcomes["packet socket"], outcomes["raw socket"]) == ("refused", "refused")
    assert {("refused", "socket packet raw"), ("refused", "socket inet raw")} <= set(log)


def test_a_socket_listening_beyond_loopback_is_refused(guarded: tuple[dict[str, str], list[tuple[str, str]]]) -> None:
    outcomes, log = guarded
    assert outcomes["bind every address"] == "refused"
    assert ("refused", "bind 0.0.0.0:0") in log


def test_the_harness_mcp_server_still_starts_and_its_start_is_recorded(guarded: tuple[dict[str, str], list[tuple[str, str]]]) -> None:
    outcomes, log = guarded
    assert outcomes["serve_mcp.py"] == "returned 0"
    assert ("allowed", f"subprocess {PYTHON} -I scripts/serve_mcp.py --help") in log


def test_every_attempt_is_recorded_once_without_ports_pids_or_temporary_paths(guarded: tuple[dict[str, str], list[tuple[str, str]]], targets: dict[str, int]) -> None:
    _, log = guarded
    assert len(log) == len(set(log))
    text = json.dumps(log)
    assert str(targets["tcp"]) not in text and str(targets["udp"]) not in text and "/tmp" not in text


def test_in_the_wire_mode_the_scripted_servers_port_is_allowed_and_recorded(tmp_path: Path, targets: dict[str, int]) -> None:
    outcomes = run_child(tmp_path / "network.jsonl", targets, ports=[targets["tcp"]])
    assert (outcomes["tcp connect"], outcomes["ctypes connect"], outcomes["udp sendto"]) == ("returned None", "refused", "refused")
    assert ("allowed", "connect loopback tcp (a port the runner serves)") in logged(tmp_path / "network.jsonl")


def test_the_runner_reads_both_lists_sorted_and_deduplicated(tmp_path: Path) -> None:
    from harness.runner_side.run.sandbox import NetworkAttempts, network_attempts

    log = tmp_path / "network.jsonl"
    lines = [["refused", "sendto loopback udp 53", "import"], ["allowed", "connect unix ledger.sock", "contract"],
             ["refused", "ctypes-lookup system", "wire"], ["allowed", "connect unix ledger.sock", "contract"], ["refused", "sendto loopback udp 53", "wire"]]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    by_mode = {"contract": NetworkAttempts(["connect unix ledger.sock"], ["sendto loopback udp 53"]),  # the import's count in every mode
               "wire": NetworkAttempts([], ["ctypes-lookup system", "sendto loopback udp 53"])}
    assert network_attempts(log, ["contract", "wire"]) == NetworkAttempts(["connect unix ledger.sock"], ["ctypes-lookup system", "sendto loopback udp 53"], by_mode)
    assert network_attempts(tmp_path / "absent.jsonl") == NetworkAttempts()


def test_a_log_the_guard_did_not_write_is_recorded_as_such(tmp_path: Path) -> None:
    """The guard runs inside the column: a column past it can replace its log; the runner says so instead of crashing or hanging."""
    import os

    from harness.runner_side.run.sandbox import FOREIGN_LINE, UNREADABLE_LOG, NetworkAttempts, network_attempts

    log = tmp_path / "network.jsonl"
    log.write_text('["allowed", "connect unix s", "import"]\nnot json\n{"allowed": 1, "x": 2}\n["refused", 3, "import"]\n["allowed", "x"]\n', encoding="utf-8")
    assert network_attempts(log) == NetworkAttempts(allowed=["connect unix s"], refused=[FOREIGN_LINE])
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    assert network_attempts(fifo) == NetworkAttempts(refused=[UNREADABLE_LOG])  # never waits for a writer
    (tmp_path / "link.jsonl").symlink_to(log)
    assert network_attempts(tmp_path / "link.jsonl") == NetworkAttempts(refused=[UNREADABLE_LOG])


def test_a_port_bound_on_another_loopback_address_opens_no_one_elses_listener(tmp_path: Path) -> None:
    """Binding 127.0.0.2:P (or [::1]:P) made P "a port this process bound", and 127.0.0.1:P, another program's, reachable."""
    import socket

    with socket.socket() as service:  # another program's listener on loopback, outside the guarded child
        service.bind(("127.0.0.1", 0))
        service.listen()
        port = service.getsockname()[1]
        code = f"""
import socket, sys
from pathlib import Path
from harness.column_side.network_guard import install_network_guard
install_network_guard(Path(sys.argv[1]))
decoy = socket.socket(); decoy.bind(("127.0.0.2", {port})); decoy.listen()
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=5)
    print("connected")
except PermissionError:
    print("refused")
own = socket.socket(); own.bind(("127.0.0.1", 0)); own.listen()
socket.create_connection(own.getsockname(), timeout=5)
print("own ok")
"""
        done = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r})\n" + code, str(tmp_path / "network.jsonl")],
                              capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.stdout.split() == ["refused", "own", "ok"], done.stderr
