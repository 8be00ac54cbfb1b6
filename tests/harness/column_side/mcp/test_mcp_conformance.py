"""The official MCP conformance suite's server scenarios against ``scripts/serve_mcp.py --http``.

The suite (npm ``@modelcontextprotocol/conformance``, pinned) runs its whole active server suite; the
scenarios that need its own test tools, resources or prompts are listed, with why, in
``conformance-expected-failures.yaml``. The suite itself fails the run on a failure not listed there and on
a listed scenario that now passes, so the baseline can neither hide a regression nor go stale.

The server wants ``Authorization: Bearer <token>`` on every request and the suite has no way to send a header,
so it reaches the server as a host that cannot send one does (docs/mcp.md, "Host configuration"): through a bridge that adds the token
(``tests/harness/column_side/mcp/auth_proxy.py``); that a client without the token gets nothing is ``test_attacks.py``'s.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.fixture_tools import FIXTURE_TOOLS
from tests.harness.column_side.mcp.auth_proxy import auth_proxy
from tests.harness.column_side.mcp.node import REPO, run_npx

pytestmark = pytest.mark.slow

SUITE, SUITE_VERSION = "@modelcontextprotocol/conformance", "0.1.16"
SERVER = REPO / "scripts" / "serve_mcp.py"
BASELINE = Path(__file__).with_name("conformance-expected-failures.yaml")
# The scenarios that test what this server does: lifecycle, ping, tools/list, concurrent POST streams,
# DNS-rebinding protection, and a failed call as an isError result with a message (tools-call-error calls
# the suite's test_error_handling, unknown here: the server answers that failure, like every failure of a
# call, as such a result). They must pass, whatever the baseline says. tools-call-simple-text passes too,
# but vacuously: it only looks for a text block, and the answer to its unknown tool has one.
APPLICABLE = ("server-initialize", "ping", "tools-list", "tools-call-error", "server-sse-multiple-streams", "dns-rebinding-protection")
_BASELINE_LINE = re.compile(r"^  - (?P<scenario>[a-z0-9-]+)  # (?P<why>\S.*)$")


def baseline() -> dict[str, str]:
    """The baseline's scenarios and their reasons (the file's own one-entry-per-line layout)."""
    lines = [line for line in BASELINE.read_text(encoding="utf-8").splitlines() if line.startswith("  - ")]
    entries = [_BASELINE_LINE.match(line) for line in lines]
    assert all(entries), f"every entry is '  - scenario  # why': {[ln for ln, m in zip(lines, entries, strict=True) if not m]}"
    return {m["scenario"]: m["why"] for m in entries if m}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _stop(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM (uvicorn shuts down cleanly on it), then SIGKILL to the whole group if it hangs."""
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    try:
        os.killpg(server.pid, signal.SIGKILL)  # anything the server started
    except ProcessLookupError:
        pass
    server.wait()


def _start(port: int, scratch: Path) -> subprocess.Popen[bytes] | None:
    """Start the server and wait until it listens; None when the port was taken in the meantime."""
    log_path = scratch / "server.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            [sys.executable, str(SERVER), "--http", str(port), "--state-dir", str(scratch / "state")],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=REPO, start_new_session=True,
        )
    deadline = time.monotonic() + 60
    while server.poll() is None and time.monotonic() < deadline:
        if _listening(port):
            return server
        time.sleep(0.1)
    _stop(server)
    output = log_path.read_text(errors="replace")
    if "address already in use" in output.lower():
        return None
    pytest.fail(f"the server did not listen on {port}: {output[-2000:]}")


@pytest.fixture
def server() -> Iterator[tuple[str, str]]:
    """A server on a free loopback port (its URL and bearer token), state and log in a temporary directory removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="mcp-conformance-") as scratch:
        for _attempt in range(3):  # a free port can be taken between the probe and the server's bind
            port = _free_port()
            process = _start(port, Path(scratch))
            if process is not None:
                try:
                    yield f"http://127.0.0.1:{port}", (Path(scratch) / "state" / "http-token").read_text().strip()
                finally:
                    _stop(process)
                return
        pytest.fail("no free port after 3 attempts")


def _results(directory: Path) -> dict[str, list[dict[str, Any]]]:
    """Scenario name -> its checks, from the suite's ``server-<scenario>-<timestamp>/checks.json`` files."""
    out = {}
    for checks in directory.glob("*/checks.json"):
        scenario = re.sub(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "", checks.parent.name).removeprefix("server-")
        out[scenario] = json.loads(checks.read_text(encoding="utf-8"))
    return out


def test_server_passes_the_conformance_suite_but_for_the_listed_scenarios(server: tuple[str, str]) -> None:
    origin, token = server
    expected_failures = baseline()
    with tempfile.TemporaryDirectory(prefix="mcp-conformance-results-") as results_dir, auth_proxy(origin, token) as bridge:
        done = run_npx(SUITE, SUITE_VERSION, "server", "--url", f"{bridge}/mcp", "--expected-failures", str(BASELINE), "-o", results_dir, timeout=600)
        results = _results(Path(results_dir))
    # The summary and the suite's baseline verdict (unexpected failures, stale entries), without colour codes.
    summary = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout[done.stdout.find("=== SUMMARY ===") :])
    assert done.returncode == 0, f"the suite's baseline check failed (exit {done.returncode}):\n{summary}\n{done.stderr[-2000:]}"
    # A baseline name the suite never ran would be ignored by it silently: every listed name must have run.
    assert set(expected_failures) <= set(results), f"not scenarios of this suite: {sorted(set(expected_failures) - set(results))}"
    for scenario in APPLICABLE:
        checks = results.get(scenario, [])
        assert checks and all(c["status"] == "SUCCESS" for c in checks), f"{scenario}: {json.dumps(checks)[:2000]}"
    listed = results["tools-list"][0]["details"]["tools"]
    assert sorted(listed) == sorted(FIXTURE_TOOLS)  # the suite saw this server's tools, not some other server's

