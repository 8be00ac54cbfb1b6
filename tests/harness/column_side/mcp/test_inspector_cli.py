"""The MCP Inspector's CLI, a client written by others, against ``scripts/serve_mcp.py`` over stdio.

Every Inspector run starts its own server process on the same ``--state-dir`` and ``--session``: the
approval flow below therefore also shows that a session's pending calls, grants and ledger outlive the
server process, and that the grant is given outside the protocol (``scripts/approve_mcp.py``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.fixture_tools import FIXTURE_TOOLS, OPENING_BALANCE_CENTS
from harness.ledger import ledger_counts
from tests.harness.column_side.mcp.attack_kit import http_server
from tests.harness.column_side.mcp.node import REPO, run_npx

pytestmark = pytest.mark.slow

INSPECTOR, INSPECTOR_VERSION = "@modelcontextprotocol/inspector", "2.12.0"
SERVER, APPROVE = REPO / "scripts" / "serve_mcp.py", REPO / "scripts" / "approve_mcp.py"
SESSION = "s1"
TRANSFER = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 500}
TOOL_ERROR_EXIT = 5  # the Inspector CLI's exit code when the tool's result has isError: true
RISK_META = "agent-framework-bench/risk"
# The hints a host sees per risk class (readOnly, destructive, idempotent, openWorld): stated here, not
# read from the server, so a server that changes them fails this test.
HINTS = {
    "read_only": (True, False, True, False),
    "reversible_write": (False, False, True, False),
    "high_risk": (False, True, False, False),
    "always_deny": (False, True, False, False),
}


class Inspector:
    """Runs ``inspector --cli`` against a fresh stdio server of session ``s1`` in a temporary state dir."""

    def __init__(self, scratch: Path) -> None:
        self.state = scratch / "state"
        # The Inspector keeps a catalog and a client config under ~/.mcp-inspector unless told otherwise.
        self.env = {"MCP_CATALOG_PATH": str(scratch / "catalog.json"), "MCP_CLIENT_CONFIG_PATH": str(scratch / "client.json")}

    def run(self, *method: str) -> tuple[int, dict[str, Any]]:
        """(exit code, the result object) of one Inspector run; ``--`` keeps the server's flags its own."""
        target = ["--", sys.executable, str(SERVER), "--state-dir", str(self.state), "--session", SESSION]
        done = run_npx(INSPECTOR, INSPECTOR_VERSION, "--cli", "--format", "json", *method, *target, env=self.env)
        assert done.stdout.strip(), f"no result (exit {done.returncode}): {done.stderr[-2000:]}"
        return done.returncode, json.loads(done.stdout)["result"]

    def call(self, tool: str, args: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        # --tool-args-json passes the values verbatim: --tool-arg would have to guess that 500 is a number.
        return self.run("--method", "tools/call", "--tool-name", tool, "--tool-args-json", json.dumps(args))

    def balance(self, account: str) -> int:
        code, result = self.call("get_balance", {"account": account})
        assert code == 0 and result["isError"] is False, result
        return int(result["structuredContent"]["result"]["balance_cents"])

    def transfers(self) -> int:
        """Committed transfer_funds effects in the session's own ledger file."""
        counts = ledger_counts(str(self.state / SESSION / "ledger.sqlite"))
        return sum(c["effects"] for c in counts.values() if c["tool"] == "transfer_funds")

    def approve(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, str(APPROVE), "--state-dir", str(self.state), "--session", SESSION, *args],
            capture_output=True, text=True, timeout=60, check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout


@pytest.fixture
def inspector() -> Iterator[Inspector]:
    # Not pytest's tmp_path, which keeps the last runs' directories: nothing of a run is left behind.
    with tempfile.TemporaryDirectory(prefix="mcp-inspector-") as scratch:
        yield Inspector(Path(scratch))


def test_tools_list_shows_every_fixture_tool_with_its_hints_and_risk(inspector: Inspector) -> None:
    # --strict: the Inspector also lints each input schema for portability across hosts, exit 6 on an error.
    code, result = inspector.run("--strict", "--method", "tools/list")
    assert code == 0
    tools = {t["name"]: t for t in result["tools"]}
    assert sorted(tools) == sorted(FIXTURE_TOOLS)
    for name, tool in tools.items():
        risk = FIXTURE_TOOLS[name].risk.value
        assert tool["_meta"][RISK_META] == risk, name
        hints = tool["annotations"]
        assert (hints["readOnlyHint"], hints["destructiveHint"], hints["idempotentHint"], hints["openWorldHint"]) == HINTS[risk], name
        assert tool["inputSchema"] == FIXTURE_TOOLS[name].schema, name  # the strict schema, verbatim


def test_a_high_risk_call_waits_for_a_grant_given_out_of_band_then_runs_once(inspector: Inspector) -> None:
    assert inspector.balance("ACC-1") == OPENING_BALANCE_CENTS

    code, held = inspector.call("transfer_funds", TRANSFER)
    assert code == TOOL_ERROR_EXIT and held["isError"] is True, held
    assert held["structuredContent"]["status"] == "approval_required", held
    # The server puts the tool's own output under "result", the pending call's id among it.
    pending_id = held["structuredContent"]["result"]["pending_id"]
    assert inspector.transfers() == 0 and inspector.balance("ACC-1") == OPENING_BALANCE_CENTS  # the ledger is unchanged

    assert pending_id in inspector.approve()  # listed as waiting
    inspector.approve("--grant", pending_id)

    code, done = inspector.call("transfer_funds", TRANSFER)
    assert code == 0 and done["isError"] is False, done
    assert done["structuredContent"]["status"] == "ok", done
    assert inspector.transfers() == 1 and inspector.balance("ACC-1") == OPENING_BALANCE_CENTS - TRANSFER["amount_cents"]

    # The grant was for one call: the same call again waits for a new one.
    code, again = inspector.call("transfer_funds", TRANSFER)
    assert code == TOOL_ERROR_EXIT and again["structuredContent"]["status"] == "approval_required", again
    assert inspector.transfers() == 1


def documented_http_host_config(port: int, token: str) -> dict[str, Any]:
    """The host configuration for Streamable HTTP that docs/mcp.md shows, with this server's port and token put in."""
    page = (REPO / "docs" / "mcp.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", page, flags=re.S)
    config = json.loads(next(b for b in blocks if '"headers"' in b and '"http"' in b))
    entry = config["mcpServers"]["agent-framework-bench"]
    assert entry["url"] == "http://127.0.0.1:8765/mcp" and entry["headers"]["Authorization"].startswith("Bearer <"), entry
    entry["url"] = f"http://127.0.0.1:{port}/mcp"
    entry["headers"]["Authorization"] = f"Bearer {token}"
    return config


def test_over_http_a_host_sends_the_token_as_docs_mcp_shows() -> None:
    with tempfile.TemporaryDirectory(prefix="mcp-inspector-http-") as scratch:
        home = Path(scratch)
        env = {"HOME": scratch, "MCP_CLIENT_CONFIG_PATH": str(home / "client.json"), "MCP_INSPECTOR_SECRET_STORE": "memory"}
        runs = {}
        with http_server(home / "state") as server:
            config = documented_http_host_config(server.port, server.token)
            for label in ("with the header", "without it"):
                if label == "without it":
                    del config["mcpServers"]["agent-framework-bench"]["headers"]
                (home / "host.json").write_text(json.dumps(config), encoding="utf-8")
                runs[label] = run_npx(
                    INSPECTOR, INSPECTOR_VERSION, "--cli", "--format", "json", "--config", str(home / "host.json"), "--server", "agent-framework-bench",
                    "--stored-auth-only", "--method", "tools/list", env=env,
                )  # fmt: skip
    listed = runs["with the header"]
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert sorted(t["name"] for t in json.loads(listed.stdout)["result"]["tools"]) == sorted(FIXTURE_TOOLS)
    refused = runs["without it"]
    assert refused.returncode != 0 and "unauthorized" in refused.stdout + refused.stderr, refused.stderr[-2000:]
