"""The ``handwritten_mcp`` column: the engine as an MCP client of ``scripts/serve_mcp.py``, one server per driver step.

The engine keeps its own pause, approval, checkpoints and idempotency records; its tools are the server's, whose
boundary applies the contract again on the other side of the protocol. Each driver step's worker forks the server
(``harness.column_side.mcp.forked``: ``scripts/serve_mcp.py`` run as ``__main__`` in the child, over two pipes as
its stdin and stdout) on the session's directory (``<scratch>/mcp/<session>``) and supervises it: a fault that kills
the tool kills the server, whose exit code the worker checks before it goes down with it, and the next step forks a
new server on the same directory. The column process imports the SDK's server once (``prepare``), so a server
starts without a new interpreter or a new import; it starts from its worker's memory, never from an earlier
server's. The worker forks it first thing in the step, while it is one thread and before it opens the run's files
(the fault records the server opens too). The human's side reaches the server out of band, in the same driver step: an approval
given to the engine is granted in the server's records too, and so is a reconcile. A scenario's direct calls are a
raw MCP client (the SDK's) sending ``tools/call`` to a server of the named session.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from adapters.handwritten.column import HandwrittenColumn, Sink
from handwritten.checkpoint import PendingCall
from handwritten.session_records import SessionRecords
from handwritten.tools import ToolSpec
from harness.column_side.driver import trace_path
from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.mcp import APPROVAL_META, KEY_META
from harness.column_side.mcp.client import McpTools, server_arguments
from harness.column_side.mcp.forked import ForkedServer
from harness.column_side.mcp.session import HARNESS_ENV, HarnessWiring
from harness.column_side.protocol import StepOutcome, StepRequest
from harness.columns import ROOT
from harness.ledger import current_binding
from harness.paths import inside
from harness.scenarios import Scenario

SERVER = ROOT / "scripts" / "serve_mcp.py"
GRANT_UNTIL_USED = float("inf")


class HandwrittenMcpColumn(HandwrittenColumn):
    """The engine over MCP: same loop and records as ``handwritten``, its tools on the far side of stdio."""

    name = "handwritten_mcp"
    modes: ClassVar[tuple[str, ...]] = ("contract",)  # its tools are over MCP, its model in process: the wire mode is the handwritten column's
    packages = ("mcp",)  # the MCP SDK the server and the engine's client ran on
    _forked: ForkedServer | None = None  # in a worker: the step's server, forked when the step began

    def prepare(self, mode: str) -> None:
        import harness.column_side.mcp.server  # noqa: F401 (what serve_mcp.py imports to serve: once, here, for every fork)

    def perform(self, scenario: Scenario, scratch: Path, request: StepRequest, mode: str = "contract") -> StepOutcome:
        session = None if request.action == "grant" else (request.boundary or {}).get("session", scenario.session_id)
        if session is not None:  # every other step meets a server (a direct call that of the session it names)
            self._forked = _fork_server(scenario, scratch, request, session)
        return super().perform(scenario, scratch, request, mode)

    @contextmanager
    def tools(self, scenario: Scenario, scratch: Path, request: StepRequest, world: FixtureWorld) -> Iterator[list[ToolSpec]]:
        with self._server() as server:
            yield server.tool_specs()

    def boundary_records(self, scratch: Path, session: str) -> SessionRecords:
        return SessionRecords(inside(scratch / "mcp", session, what="session id"))  # the server's own session directory

    def call_boundary(self, scenario: Scenario, scratch: Path, request: StepRequest, world: FixtureWorld, sink: Sink) -> tuple[str, str | None]:
        step = request.boundary or {}
        meta: dict[str, Any] = {}
        if "key" in step:
            meta[KEY_META] = step["key"]
        if "approval_meta" in step:
            meta[APPROVAL_META] = step["approval_meta"]
        with self._server() as server:
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

    def _server(self) -> McpTools:
        """The step's server, as the engine's (or a raw client's) tools."""
        assert self._forked is not None, "the server is forked when the step begins"
        server, self._forked = self._forked, None  # one client, once
        return McpTools(server)


def _fork_server(scenario: Scenario, scratch: Path, request: StepRequest, session: str) -> ForkedServer:
    """The server of ``session`` for this driver step, wired to the run's ledger, faults, clock and trace."""
    binding = current_binding()
    assert binding is not None, "a driver step runs in a supervised worker bound to the ledger"
    wiring = HarnessWiring(
        scratch=str(scratch),
        faults=[f.to_json() for f in scenario.faults],
        ledger=(binding.connector.open(binding.run, binding.step).detach(), binding.run, binding.step),  # the server's own channel, inherited
        now=request.now,
        trace=str(trace_path(scratch)),
    )
    arguments = server_arguments(str(scratch / "mcp"), session, scenario.user, list(scenario.tools))
    return ForkedServer(str(SERVER), arguments, {HARNESS_ENV: wiring.to_env()})
