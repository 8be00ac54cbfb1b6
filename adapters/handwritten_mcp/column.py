"""The ``handwritten_mcp`` column: the engine as an MCP client of ``scripts/serve_mcp.py``, one server per driver step.

The engine keeps its own pause, approval, checkpoints and idempotency records; its tools are the server's, whose
boundary applies the contract again on the other side of the protocol. Each driver step's worker starts the server
over stdio on the session's directory (``<scratch>/mcp/<session>``) and supervises it: a fault that kills the tool
kills the server, whose exit code the worker checks before it goes down with it, and the next step starts a new
server on the same directory. The human's side reaches the server out of band, in the same driver step: an approval
given to the engine is granted in the server's records too, and so is a reconcile. A scenario's direct calls are a
raw MCP client (the SDK's) sending ``tools/call`` to a server of the named session.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from adapters.handwritten.column import HandwrittenColumn, Sink
from handwritten.checkpoint import PendingCall
from handwritten.session_records import SessionRecords
from handwritten.tools import ToolSpec
from harness.column_side.driver import trace_path
from harness.column_side.mcp import APPROVAL_META, KEY_META
from harness.column_side.mcp.client import McpTools, server_command
from harness.column_side.mcp.session import HARNESS_ENV, HarnessWiring
from harness.column_side.protocol import StepRequest
from harness.column_side.world import FixtureWorld
from harness.columns import ROOT
from harness.ledger import current_binding
from harness.scenarios import Scenario

SERVER = ROOT / "scripts" / "serve_mcp.py"
GRANT_UNTIL_USED = float("inf")


class HandwrittenMcpColumn(HandwrittenColumn):
    """The engine over MCP: same loop and records as ``handwritten``, its tools on the far side of stdio."""

    name = "handwritten_mcp"
    packages = ("mcp",)  # the MCP SDK the server and the engine's client ran on

    @contextmanager
    def tools(self, scenario: Scenario, scratch: Path, request: StepRequest, world: FixtureWorld) -> Iterator[list[ToolSpec]]:
        with _server(scenario, scratch, request, scenario.session_id) as server:
            yield server.tool_specs()

    def boundary_records(self, scratch: Path, session: str) -> SessionRecords:
        return SessionRecords(scratch / "mcp" / session)  # the server's own session directory

    def call_boundary(self, scenario: Scenario, scratch: Path, request: StepRequest, world: FixtureWorld, sink: Sink) -> tuple[str, str | None]:
        step = request.boundary or {}
        meta: dict[str, Any] = {}
        if "key" in step:
            meta[KEY_META] = step["key"]
        if "approval_meta" in step:
            meta[APPROVAL_META] = step["approval_meta"]
        with _server(scenario, scratch, request, step.get("session", scenario.session_id)) as server:
            body = server.call_raw(step["tool"], step["arguments"], meta)
        return body["status"], body.get("reason")

    def approved_in_engine(self, scratch: Path, scenario: Scenario, call: PendingCall, now: float) -> None:
        # The same driver step grants the server's approval, for this call only (the engine sends its call id as the key):
        # the call the engine runs next reaches the server once. The engine keeps an approval it accepted until the call
        # runs (after the turn's other calls are decided, however long that takes), so the grant does not expire either.
        records = self.boundary_records(scratch, scenario.session_id)
        try:
            records.grant(call.tool, call.args_hash, GRANT_UNTIL_USED, call.call_id)
        finally:
            records.close()

    def settle_at_boundary(self, scratch: Path, session: str, call_id: str, outcome: str) -> None:
        records = self.boundary_records(scratch, session)
        try:
            records.reconcile(call_id, outcome)  # the server of the step before has exited: its keys are no longer held
        finally:
            records.close()


def _server(scenario: Scenario, scratch: Path, request: StepRequest, session: str) -> McpTools:
    """The server of ``session`` for this driver step, wired to the run's ledger, faults, clock and trace."""
    binding = current_binding()
    assert binding is not None, "a driver step runs in a supervised worker bound to the ledger"
    wiring = HarnessWiring(
        scratch=str(scratch),
        faults=[f.to_json() for f in scenario.faults],
        ledger=(binding.address, binding.run, binding.step),
        now=request.now,
        trace=str(trace_path(scratch)),
    )
    argv = server_command(sys.executable, str(SERVER), str(scratch / "mcp"), session, scenario.user, list(scenario.tools))
    return McpTools(argv, {**os.environ, HARNESS_ENV: wiring.to_env()})
