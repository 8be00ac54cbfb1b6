"""The sandbox around a column: python -I, a cleaned environment, the network and program guard, timeouts, not-measured."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.column_side.network_guard import ALLOWED_PROGRAMS, allowed_program
from harness.columns import ROOT, Column
from harness.runner_side.run.runner import run_column
from harness.runner_side.run.sandbox import TELEMETRY_OFF, allowed_attempts, refused_attempts

BROKEN_DIR = ROOT / "tests" / "broken_adapters"


@pytest.fixture()
def one_scenario(tmp_path: Path) -> Path:
    directory = tmp_path / "scenarios"
    directory.mkdir()
    shutil.copy(ROOT / "scenarios" / "basic_react_loop.json", directory)
    return directory


@pytest.mark.slow  # column processes through the runner
def test_a_column_runs_isolated_with_a_cleaned_environment(one_scenario: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    monkeypatch.setenv("PYTHONPATH", "/nowhere")
    probe = Column("probe_sandbox", "probe_sandbox", "project", "")
    result = run_column(probe, ["contract"], one_scenario, tmp_path / "s", scenario_count=1, extra_sys_path=[BROKEN_DIR])
    assert result.status == "measured", result.reason
    detail = result.modes["contract"]["basic_react_loop"]["detail"]
    assert (detail["isolated"], detail["ignore_environment"], detail["lookup"]) == (1, 1, "refused")
    assert set(detail["environment"]) == {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", *TELEMETRY_OFF}
    assert result.network.refused == ["resolve 'example.invalid'"]


@pytest.mark.slow  # column processes through the runner
def test_a_hanging_step_is_killed_and_recorded_as_a_timeout(one_scenario: Path, tmp_path: Path) -> None:
    hangs = Column("hangs", "hangs", "project", "")
    result = run_column(hangs, ["contract"], one_scenario, tmp_path, scenario_count=1, extra_sys_path=[BROKEN_DIR], scenario_timeout_s=2)
    record = result.modes["contract"]["basic_react_loop"]
    assert (result.status, record["status"], record["error"]) == ("measured", "error", "timeout")


@pytest.mark.slow  # column processes through the runner
def test_an_adapter_that_cannot_start_is_not_measured_with_the_reason(one_scenario: Path, tmp_path: Path) -> None:
    result = run_column(Column("ghost", "no_such_adapter_module", "project", ""), ["contract"], one_scenario, tmp_path, scenario_count=1)
    assert result.status == "not-measured"
    assert "ModuleNotFoundError: No module named 'no_such_adapter_module'" in (result.reason or "")


# Run in a ``python -I`` child: the guard is irreversible in the process that installs it.
# A second hook, added behind the guard, stops any guarded event the guard lets through
# while ``BACKSTOP[0]`` holds, so a broken guard still sends nothing and starts nothing.
PROBE_PRELUDE = """
import json, multiprocessing.util, os, socket, subprocess, sys
from pathlib import Path
from harness.column_side import network_guard as sandbox
sandbox.install_network_guard(Path(sys.argv[1]))
BACKSTOP = [True]
def backstop(event, args):
    if BACKSTOP[0] and (event in sandbox.NETWORK_EVENTS or event in sandbox.PROGRAM_EVENTS):
        raise RuntimeError(f"the guard let {event} through")
sys.addaudithook(backstop)
def outcome(attempt):
    try:
        result = attempt()
    except PermissionError:
        return "refused"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return f"returned {result}"
"""

REFUSED_PROBE = """
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # 192.0.2.0/24 is TEST-NET-1: never routed
attempts = {
    "connect": lambda: socket.socket().connect(("192.0.2.1", 443)),
    "sendto": lambda: udp.sendto(b"x", ("192.0.2.1", 53)),
    "sendmsg": lambda: udp.sendmsg([b"x"], [], 0, ("192.0.2.1", 123)),
    "getaddrinfo": lambda: socket.getaddrinfo("api.example.com", 443),
    "gethostbyname": lambda: socket.gethostbyname("one.example.com"),
    "gethostbyname_ex": lambda: socket.gethostbyname_ex("two.example.com"),
    "gethostbyaddr": lambda: socket.gethostbyaddr("192.0.2.2"),
    "getnameinfo": lambda: socket.getnameinfo(("192.0.2.3", 80), 0),
    "Popen": lambda: subprocess.Popen([sys.executable, str(sandbox.ROOT / "scripts" / "bench_engine.py"), f"--out={Path(sys.argv[1]).parent}/e.json"]),
    "system": lambda: os.system("true system"),
    "execv": lambda: os.execv("/bin/true", ["true", "execv"]),
    "posix_spawn": lambda: os.posix_spawn("/bin/true", ["true", "posix_spawn"], {}),
    "fork_exec": lambda: multiprocessing.util.spawnv_passfds(b"/bin/true", ["true", "fork_exec"], ()),  # how multiprocessing spawns
    "spawnv": lambda: os.spawnv(os.P_WAIT, "/bin/true", ["true", "spawnv"]),  # the forked child's exec is refused
}
print(json.dumps({name: outcome(attempt) for name, attempt in attempts.items()}))
"""

ALLOWED_PROBE = """
BACKSTOP[0] = False
outcomes = {}
server = socket.create_server(("127.0.0.1", 0))  # a port of its own (UDP on loopback: test_network_guard_gaps.py)
outcomes["connect"] = outcome(lambda: socket.create_connection(server.getsockname()).close())
outcomes["getaddrinfo"] = outcome(lambda: len(socket.getaddrinfo("localhost", 80)) > 0)
outcomes["gethostbyname"] = outcome(lambda: socket.gethostbyname("localhost").startswith("127."))
outcomes["gethostbyname_ex"] = outcome(lambda: socket.gethostbyname_ex("localhost")[0] != "")
outcomes["gethostbyaddr"] = outcome(lambda: sys.audit("socket.gethostbyaddr", "127.0.0.1"))  # the event alone: no lookup
directory = Path(sys.argv[1]).parent  # pytest's tmp_path: short enough for an AF_UNIX path (about 100 bytes)
unix_server = socket.socket(socket.AF_UNIX)
unix_server.bind(str(directory / "s"))
unix_server.listen()
outcomes["unix connect"] = outcome(lambda: socket.socket(socket.AF_UNIX).connect(str(directory / "s")))
unix_receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
unix_receiver.bind(str(directory / "d"))
outcomes["unix sendto"] = outcome(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"x", str(directory / "d")))
script = directory / "allowed.py"
script.write_text("print('the allowed program ran')")
sandbox.ALLOWED_PROGRAMS = (script.resolve(),)
outcomes["allowed program"] = outcome(lambda: subprocess.run([sys.executable, "-I", str(script)], capture_output=True, text=True).stdout.strip())
print(json.dumps(outcomes))
"""


def run_guarded(probe: str, log: Path) -> dict[str, object]:
    """Run a probe behind a freshly installed guard in a ``python -I`` child; its printed outcomes."""
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); exec({PROBE_PRELUDE + probe!r})"
    done = subprocess.run([sys.executable, "-I", "-c", code, str(log)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    outcomes: dict[str, object] = json.loads(done.stdout)
    return outcomes


def test_the_guard_refuses_and_records_every_remote_access_and_program_start(tmp_path: Path) -> None:
    log = tmp_path / "network.jsonl"
    outcomes = run_guarded(REFUSED_PROBE, log)
    assert outcomes == {**{name: "refused" for name in outcomes}, "spawnv": "returned 127"}
    assert refused_attempts(log) == [
        "connect 192.0.2.1:443",
        "exec true execv",
        "exec true spawnv",
        "resolve 'api.example.com'",
        "resolve 'one.example.com'",
        "resolve 'two.example.com'",
        "reverse-resolve '192.0.2.2'",
        "reverse-resolve '192.0.2.3'",
        "sendmsg 192.0.2.1:123",
        "sendto 192.0.2.1:53",
        f"subprocess {Path(sys.executable).name} scripts/bench_engine.py --out=e.json",  # no temporary path recorded
        "subprocess true fork_exec",
        "subprocess true posix_spawn",
        "system sh -c 'true system'",
    ]
    assert allowed_attempts(log) == []


def test_the_guard_lets_loopback_unix_sockets_and_the_harness_programs_through(tmp_path: Path) -> None:
    log = tmp_path / "network.jsonl"
    outcomes = run_guarded(ALLOWED_PROBE, log)
    assert outcomes == {
        "connect": "returned None",
        "getaddrinfo": "returned True",
        "gethostbyname": "returned True",
        "gethostbyname_ex": "returned True",
        "gethostbyaddr": "returned None",
        "unix connect": "returned None",
        "unix sendto": "returned 1",
        "allowed program": "returned the allowed program ran",
    }
    assert refused_attempts(log) == []
    assert allowed_attempts(log) == [
        "bind loopback tcp (a port the system picks)",
        "bind unix d",
        "bind unix s",
        "connect loopback tcp (a port this process bound)",
        "connect unix s",
        "resolve '127.0.0.1'",
        "resolve 'localhost'",
        "reverse-resolve '127.0.0.1'",
        "sendto unix d",
        f"subprocess {Path(sys.executable).name} -I allowed.py",
    ]


def test_only_the_harness_programs_are_allowed() -> None:
    assert ALLOWED_PROGRAMS == (ROOT / "scripts" / "serve_mcp.py", ROOT / "scripts" / "mcp_stdio_relay.py")  # the server; the mcp mode's relay
    assert allowed_program(sys.executable, [sys.executable, "-I", str(ROOT / "scripts" / "mcp_stdio_relay.py")])
    server = str(ROOT / "scripts" / "serve_mcp.py")
    assert allowed_program(sys.executable, [sys.executable, "-I", server])
    assert allowed_program(server, [server, "--stdio"])
    assert not allowed_program(sys.executable, [sys.executable, "-c", "print(1)", server])
    assert not allowed_program("/bin/sh", ["sh", "-c", f"python {server}"])


def test_with_the_wire_servers_port_the_guard_lets_loopback_through_to_that_port_only(tmp_path: Path) -> None:
    """The wire mode's column process reaches the runner's scripted server on loopback, and no other loopback port."""
    log = tmp_path / "network.jsonl"
    done = subprocess.run([sys.executable, "-I", "-c", WIRE_PORT_PROBE, str(ROOT), str(log)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"wire": "allowed", "other": "refused", "unix": "allowed"}
    assert refused_attempts(log) == ["connect loopback tcp (ephemeral port)"]
    assert allowed_attempts(log) == ["connect loopback tcp (a port the runner serves)", "connect unix s", "resolve '127.0.0.1'"]


WIRE_PORT_PROBE = """
import json, socket, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from harness.column_side.network_guard import install_network_guard
wire, other = socket.create_server(("127.0.0.1", 0)), socket.create_server(("127.0.0.1", 0))
log = Path(sys.argv[2])
unix_server = socket.socket(socket.AF_UNIX)
unix_server.bind(str(log.parent / "s"))
unix_server.listen()
install_network_guard(log, frozenset({wire.getsockname()[1]}))
def outcome(attempt):
    try:
        attempt()
    except PermissionError:
        return "refused"
    return "allowed"
print(json.dumps({"wire": outcome(lambda: socket.create_connection(wire.getsockname()).close()),
                  "other": outcome(lambda: socket.create_connection(other.getsockname()).close()),
                  "unix": outcome(lambda: socket.socket(socket.AF_UNIX).connect(str(log.parent / "s")))}))
"""
