"""The ``mcp`` mode's step bound: a step whose worker gets no answer in time is stopped and recorded ``stalled`` (a
measured outcome: a client that waits with no bound for an answer the server never sent), and the next step runs."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from harness.column_side import driver
from harness.column_side.driver import McpAccess, run_scenario
from harness.column_side.protocol import StepOutcome, StepRequest
from harness.scenarios import Scenario, load_scenarios

BASE = next(s for s in load_scenarios() if s.id == "mcp_server_dies_after_effect")  # run, then reconcile


def _hangs_first(scenario: Scenario, scratch: Path, request: StepRequest) -> StepOutcome:
    if request.index == 0:
        time.sleep(60)  # a client still waiting for its answer
    return StepOutcome("completed", "completed")


@pytest.mark.parametrize("mcp", [True, False])
def test_a_step_past_the_bound_is_stalled_in_mcp_and_the_next_one_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mcp: bool) -> None:
    monkeypatch.setattr(driver, "MCP_STEP_BOUND_S", 0.5)
    ours, runners = socket.socketpair()
    access = McpAccess("http://127.0.0.1:9/mcp", "token", ours) if mcp else None
    started = time.monotonic()
    with ours, runners:
        run = run_scenario(BASE, _hangs_first, tmp_path, timeout_s=3.0 if not mcp else 30.0, mcp=access)
    statuses = [(s.status, s.error) for s in run.steps]
    if mcp:  # stopped at the bound, recorded as what it is, and the reconcile step still ran
        assert statuses == [("stalled", None), ("completed", None)]
        assert time.monotonic() - started < 10
    else:  # outside mcp a hang is the scenario's timeout: a failure to measure, and nothing after it runs
        assert statuses == [("error", "timeout")]
