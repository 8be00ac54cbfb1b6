"""The sandbox around a column: python -I, a cleaned environment, the network guard, timeouts, not-measured."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.columns import ROOT, Column
from harness.runner import run_column
from harness.sandbox import TELEMETRY_OFF, refused_attempts

BROKEN_DIR = ROOT / "tests" / "broken_adapters"


@pytest.fixture()
def one_scenario(tmp_path: Path) -> Path:
    directory = tmp_path / "scenarios"
    directory.mkdir()
    shutil.copy(ROOT / "scenarios" / "basic_react_loop.json", directory)
    return directory


def test_a_column_runs_isolated_with_a_cleaned_environment(one_scenario: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    monkeypatch.setenv("PYTHONPATH", "/nowhere")
    result = run_column(Column("probe_sandbox", "probe_sandbox", "project", ""), ["contract"], one_scenario, tmp_path / "s", scenario_count=1, extra_sys_path=[BROKEN_DIR])
    assert result.status == "measured", result.reason
    detail = result.modes["contract"]["basic_react_loop"]["detail"]
    assert (detail["isolated"], detail["ignore_environment"], detail["lookup"]) == (1, 1, "refused")
    assert set(detail["environment"]) == {"PATH", "HOME", "LANG", "LC_ALL", "TZ", *TELEMETRY_OFF}
    assert result.network == ["resolve 'example.invalid'"]


def test_a_hanging_step_is_killed_and_recorded_as_a_timeout(one_scenario: Path, tmp_path: Path) -> None:
    result = run_column(Column("hangs", "hangs", "project", ""), ["contract"], one_scenario, tmp_path, scenario_count=1, extra_sys_path=[BROKEN_DIR], scenario_timeout_s=2)
    record = result.modes["contract"]["basic_react_loop"]
    assert (result.status, record["status"], record["error"]) == ("measured", "error", "timeout")


def test_an_adapter_that_cannot_start_is_not_measured_with_the_reason(one_scenario: Path, tmp_path: Path) -> None:
    result = run_column(Column("ghost", "no_such_adapter_module", "project", ""), ["contract"], one_scenario, tmp_path, scenario_count=1)
    assert result.status == "not-measured"
    assert "ModuleNotFoundError: No module named 'no_such_adapter_module'" in (result.reason or "")


GUARD_PROBE = """
import socket, sys
from pathlib import Path
from harness.sandbox import install_network_guard
install_network_guard(Path(sys.argv[1]))
outcomes = []
for event, args in [("socket.connect", (socket.socket(), ("192.0.2.1", 443))), ("socket.getaddrinfo", ("api.example.com", 443, 0, 0, 0))]:
    try:
        sys.audit(event, *args)  # the audit event alone: nothing is sent even if the guard were broken
        outcomes.append("allowed")
    except PermissionError:
        outcomes.append("refused")
server = socket.create_server(("127.0.0.1", 0))
client = socket.create_connection(server.getsockname())  # loopback is allowed for real
socket.getaddrinfo("localhost", 80)
outcomes.append("loopback ok")
print(",".join(outcomes))
"""


def test_the_network_guard_refuses_everything_but_loopback(tmp_path: Path) -> None:
    log = tmp_path / "network.jsonl"
    done = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); exec({GUARD_PROBE!r})", str(log)], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "refused,refused,loopback ok", done.stderr
    assert refused_attempts(log) == ["connect 192.0.2.1:443", "resolve 'api.example.com'"]
