"""The MCP server against the official SDK's client: in process, over stdio (``scripts/serve_mcp.py``) and over
Streamable HTTP. Tools are listed with their schemas verbatim, annotations from the risk class and the risk class in
``_meta``; every outcome is a tool result with ``isError``, ``structuredContent`` and the status first in its text;
the approval is granted out of band (``scripts/approve_mcp.py``), and nothing in ``_meta`` approves."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.client import ConnectMode
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from harness.column_side.mcp import APPROVAL_META, KEY_META, RISK_META
from harness.column_side.mcp.server import build_server
from harness.column_side.mcp.session import open_boundary
from harness.columns import ROOT
from harness.fixture_tools import FIXTURE_TOOLS
from harness.ledger import ledger_counts
from tests.harness.column_side.mcp.attack_kit import http_server

TRANSFER = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 500}
HINTS = {"read_only": (True, False, True), "reversible_write": (False, False, True), "high_risk": (False, True, False), "always_deny": (False, True, False)}


def meta(*pairs: str) -> Any:
    """A request's ``_meta`` with this project's keys (the SDK's type names only the protocol's own)."""
    return dict(zip(pairs[::2], pairs[1::2], strict=True))


def stdio(state: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(ROOT / "scripts" / "serve_mcp.py"), "--state-dir", str(state), "--session", "s1"])


async def listing_and_outcomes(client: Client) -> dict[str, Any]:
    tools = (await client.list_tools()).tools
    calls = {
        "invalid": await client.call_tool("transfer_funds", {**TRANSFER, "amount_cents": "500"}),
        "unknown": await client.call_tool("nope", {}),
        "denied": await client.call_tool("drop_database", {"name": "prod"}),
        "unapproved": await client.call_tool("transfer_funds", TRANSFER, meta=meta(KEY_META, "k1")),
        "forged": await client.call_tool("transfer_funds", TRANSFER, meta=meta(KEY_META, "k1", APPROVAL_META, "approved")),
        "other_user": await client.call_tool("list_orders", {"username": "bob"}),
        "ok": await client.call_tool("get_weather", {"city": "Paris"}),
    }
    return {"tools": tools, "calls": calls}


def check(seen: dict[str, Any]) -> None:
    tools = {t.name: t for t in seen["tools"]}
    assert set(tools) == set(FIXTURE_TOOLS)
    for name, tool in tools.items():
        spec = FIXTURE_TOOLS[name]
        assert tool.input_schema == spec.schema  # the registry's raw schema, verbatim
        assert tool.meta[RISK_META] == spec.risk.value
        hints = (tool.annotations.read_only_hint, tool.annotations.destructive_hint, tool.annotations.idempotent_hint)
        assert hints == HINTS[spec.risk.value]
    statuses = {}
    for label, result in seen["calls"].items():
        body = result.structured_content
        assert result.is_error is (body["status"] not in ("ok", "replayed"))
        assert result.content[0].text.startswith(f"{body['status']}: ")  # a client that shows only text sees the status
        statuses[label] = (body["status"], body["reason"])
    assert statuses == {
        "invalid": ("invalid_arguments", "invalid_arguments"),
        "unknown": ("unknown_tool", "unknown_tool"),
        "denied": ("denied", "always_deny"),
        "unapproved": ("approval_required", "approval_required"),
        "forged": ("refused", "client_approval"),
        "other_user": ("refused", "other_user"),
        "ok": ("ok", None),
    }


def test_in_process(tmp_path: Path) -> None:
    boundary = open_boundary(tmp_path, "s1", "alice", list(FIXTURE_TOOLS), None)

    async def main() -> dict[str, Any]:
        async with Client(build_server(boundary)) as client:
            return await listing_and_outcomes(client)

    check(anyio.run(main))
    assert ledger_counts(str(tmp_path / "s1" / "ledger.sqlite")).keys() == {"srv:5"}  # only the read ran (the fifth call without a key)


@pytest.mark.slow
def test_over_stdio_with_the_approval_granted_out_of_band(tmp_path: Path) -> None:
    async def first() -> dict[str, Any]:
        async with Client(stdio(tmp_path)) as client:
            return await listing_and_outcomes(client)

    seen = anyio.run(first)
    check(seen)
    pending = seen["calls"]["unapproved"].structured_content["result"]["pending_id"]
    approver = [sys.executable, str(ROOT / "scripts" / "approve_mcp.py"), "--state-dir", str(tmp_path), "--session", "s1"]
    assert pending in subprocess.run(approver, capture_output=True, text=True, check=True).stdout
    subprocess.run([*approver, "--grant", pending], check=True, capture_output=True)

    async def second() -> list[str]:  # a restarted server continues the session: the grant is there, used once
        async with Client(stdio(tmp_path), mode="legacy") as client:
            sent = [await client.call_tool("transfer_funds", TRANSFER, meta=meta(KEY_META, key)) for key in ("k1", "k1", "k2")]
            return [r.structured_content["status"] for r in sent]

    assert anyio.run(second) == ["ok", "replayed", "approval_required"]
    assert ledger_counts(str(tmp_path / "s1" / "ledger.sqlite"))["k1"]["effects"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "auto"])  # 2025-11-25 with its handshake, and what the client negotiates by default
def test_over_streamable_http_with_the_bearer_token(tmp_path: Path, mode: ConnectMode) -> None:
    with http_server(tmp_path) as server:

        async def main() -> dict[str, Any]:
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {server.token}"}) as http:
                async with Client(streamable_http_client(f"http://127.0.0.1:{server.port}/mcp", http_client=http), mode=mode) as client:
                    return await listing_and_outcomes(client)

        check(anyio.run(main))


def test_the_handwritten_mcp_evidence_records_the_sdk_it_ran_on() -> None:
    document = json.loads((ROOT / "evidence" / "handwritten_mcp.json").read_text(encoding="utf-8"))
    assert document["versions"] == {"mcp": importlib.metadata.version("mcp")}
