"""Where a column's MCP client finds its tools in the ``mcp`` mode: the runner's MCP server, over HTTP or stdio.

In ``mcp`` mode every tool of the agent comes from the runner's MCP server (``harness.runner_side.run.servers.mcp``), through
the framework's own documented MCP client at its defaults. A worker's request carries the step's Streamable HTTP
endpoint and the column's bearer token (``StepRequest.mcp_url``, ``mcp_token``). Over Streamable HTTP the client
connects to it directly; over stdio it starts the harness's relay (``scripts/mcp_stdio_relay.py``: stdio in, the
runner's server out; the one program the network guard lets a column start besides ``serve_mcp.py``) with the endpoint
and token in its environment. Which transport a scenario's run uses is fixed here (``STDIO_SCENARIOS``), the same for
every column, so each column plays some scenarios over each transport.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Literal

from harness.column_side.protocol import StepRequest
from harness.columns import ROOT

RELAY = ROOT / "scripts" / "mcp_stdio_relay.py"
STDIO_SCENARIOS = frozenset({"basic_react_loop", "high_risk_approved", "mcp_reset_mid_call", "crash_resume"})
"""The scenarios whose ``mcp`` runs reach the server over stdio (through the relay); every other one over Streamable
HTTP. A read-only turn, an approval, a dropped connection and a kill: each transport meets each kind of step."""


@dataclass(frozen=True)
class McpEndpoint:
    """One step's way to the runner's MCP server: ``transport`` and, for it, the URL and headers (``http``) or the
    command, arguments and environment of the relay (``stdio``)."""

    transport: Literal["http", "stdio"]
    url: str
    token: str

    @property
    def headers(self) -> dict[str, str]:
        """The HTTP headers every request must carry: the column's bearer token."""
        return {"Authorization": f"Bearer {self.token}"}

    @property
    def command(self) -> str:
        """The stdio server's program: this interpreter (the column's environment's), which runs the relay."""
        return sys.executable

    @property
    def args(self) -> list[str]:
        return ["-I", str(RELAY)]

    @property
    def env(self) -> dict[str, str]:
        """The relay's environment: the endpoint and token (never on a command line), and nothing inherited."""
        return {"AGENT_BENCH_MCP_URL": self.url, "AGENT_BENCH_MCP_TOKEN": self.token, "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}


def endpoint(scenario_id: str, request: StepRequest) -> McpEndpoint:
    """The step's endpoint, over the transport ``STDIO_SCENARIOS`` fixes for the scenario."""
    if request.mcp_url is None or request.mcp_token is None:
        raise ValueError("the mcp mode's step carries the runner's MCP endpoint; this one has none")
    return McpEndpoint("stdio" if scenario_id in STDIO_SCENARIOS else "http", request.mcp_url, request.mcp_token)
