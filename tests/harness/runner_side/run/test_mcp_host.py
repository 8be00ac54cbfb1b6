"""The runner's MCP server of the ``mcp`` mode (``harness.runner_side.run.servers.mcp``), over real Streamable HTTP on
127.0.0.1 with the official SDK's client: the path names the run and step, the effects are counted in the runner's
ledger under the model's call ids, the scenario's MCP faults act on the answer (a real death of the server process,
started again on the same port; a cut stream; a late answer), a kill fault in a tool kills the server and, through the
column's supervisor, the step's worker before a new server starts, and the human's side is the scenario's, applied by
the server itself."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from harness.columns import ROOT
from harness.ledger_server import LedgerServer
from harness.runner_side.observe.mcp import mcp_client, mcp_observable
from harness.runner_side.run.servers.mcp import McpHost
from harness.scenarios import MCP_SLOW_DELAY_S, load_scenario

USED = ("basic_react_loop", "high_risk_approved", "mcp_server_dies_after_effect", "mcp_reset_mid_call", "mcp_slow_answer", "decision_after_kill",
        "kill_in_batch_after_approved")


@pytest.fixture
def host(tmp_path: Path) -> Iterator[tuple[McpHost, LedgerServer]]:
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    for name in USED:
        shutil.copy(ROOT / "scenarios" / f"{name}.json", scenarios)
    with LedgerServer(tmp_path / "ledger.sqlite") as ledger, McpHost(scenarios, tmp_path / "host", ledger) as served:
        yield served, ledger


def _call(served: McpHost, key: str, step: int, tool: str, arguments: dict[str, Any], token: str | None = None, read_timeout: float | None = None) -> Any:
    """One client session at the run and step's endpoint: list the tools, send one call (``read_timeout``: the client's
    for this call); its structured result, or the exception the client raised."""

    async def session() -> Any:
        headers = {"Authorization": f"Bearer {token or served.token}"}
        url = f"{served.base_url}/mcp/{key}/{step}/mcp"
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http, Client(streamable_http_client(url, http_client=http)) as client:
            await client.list_tools()
            return (await client.call_tool(tool, arguments, read_timeout_seconds=read_timeout)).structured_content

    try:
        return anyio.run(session)
    except BaseException as exc:  # the client's own failure (a dead server, a cut stream): the outcome measured
        return exc


def _first_call(key: str) -> dict[str, Any]:
    return next(c for t in load_scenario(ROOT / "scenarios" / f"{key}.json").model_script for c in t.get("tool_calls", ()))


def test_a_call_is_served_through_the_boundary_and_counted_under_the_models_call_id(host: tuple[McpHost, LedgerServer]) -> None:
    served, ledger = host
    call = _first_call("basic_react_loop")
    body = _call(served, "basic_react_loop", 0, call["name"], call["arguments"])
    assert body["status"] == "ok" and body["call_id"] == "srv:1"  # no key sent: the server's own id
    assert ledger.store.counts("mcp/basic_react_loop")["c1"]["tool_entries"] == 1  # the ledger's id is the model's
    requests = served.requests("mcp/basic_react_loop")
    assert [r["method"] for r in requests].count("tools/call") == 2  # received, answered
    summary = mcp_client(load_scenario(ROOT / "scenarios" / "basic_react_loop.json"), requests, [])
    assert summary["calls"] == {"c1": {"sent": 1, "keys": 0, "changed": 0, "answers": ["ok"], "steps": [0], "arguments": ["model"]}}
    assert summary["lists"] >= 1


def test_a_wrong_token_or_an_unknown_path_reaches_nothing(host: tuple[McpHost, LedgerServer]) -> None:
    served, ledger = host
    assert isinstance(_call(served, "basic_react_loop", 0, "get_weather", {"city": "Paris"}, token="wrong"), BaseException)
    for path in ("/mcp/no_such_scenario/0/mcp", "/mcp/basic_react_loop/99/mcp", "/contract/basic_react_loop/0/mcp", "/mcp/../x/0/mcp"):
        connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=5)
        connection.request("POST", path, body=b"{}", headers={"Authorization": f"Bearer {served.token}", "Content-Type": "application/json"})
        assert connection.getresponse().status == 404, path
    assert len(ledger.store) == 0 and not (served.state_dir / "mcp__no_such_scenario").exists()


def test_a_server_that_dies_after_the_effect_is_started_again_on_the_same_port(host: tuple[McpHost, LedgerServer]) -> None:
    served, ledger = host
    call = _first_call("mcp_server_dies_after_effect")
    assert isinstance(_call(served, "mcp_server_dies_after_effect", 0, call["name"], call["arguments"]), BaseException)
    assert ledger.store.counts("mcp/mcp_server_dies_after_effect")["c1"]["effects"] == 1
    again = _call(served, "mcp_server_dies_after_effect", 0, call["name"], call["arguments"])  # a client that sends it again, no key
    assert again["status"] == "ok"
    assert ledger.store.counts("mcp/mcp_server_dies_after_effect")["c1"]["effects"] == 2  # the same call, written twice
    assert [r["event"] for r in served.restarts] == ["server_kill"] and not served.errors
    summary = mcp_client(load_scenario(ROOT / "scenarios" / "mcp_server_dies_after_effect.json"), served.requests("mcp/mcp_server_dies_after_effect"), [])
    assert summary["calls"]["c1"] == {"sent": 2, "keys": 0, "changed": 0, "answers": ["died", "ok"], "steps": [0, 0],
                                      "arguments": ["model", "model"]}  # in the order sent


def test_a_dropped_connection_cuts_the_answer_and_the_server_lives_on(host: tuple[McpHost, LedgerServer]) -> None:
    served, ledger = host
    call = _first_call("mcp_reset_mid_call")
    assert isinstance(_call(served, "mcp_reset_mid_call", 0, call["name"], call["arguments"]), BaseException)
    assert ledger.store.counts("mcp/mcp_reset_mid_call")["c1"]["effects"] == 1
    assert served.restarts == [] and not served.errors
    assert _call(served, "basic_react_loop", 0, "get_weather", {"city": "Paris"})["status"] == "ok"


def test_a_slow_answer_comes_after_its_delay(host: tuple[McpHost, LedgerServer]) -> None:
    served, ledger = host
    call = _first_call("mcp_slow_answer")
    started = time.monotonic()
    body = _call(served, "mcp_slow_answer", 0, call["name"], call["arguments"])
    assert body["status"] == "ok" and time.monotonic() - started >= MCP_SLOW_DELAY_S
    assert ledger.store.counts("mcp/mcp_slow_answer")["c1"]["effects"] == 1


def test_a_client_that_stops_waiting_for_a_slow_answer_is_recorded_as_having_withdrawn_the_call(host: tuple[McpHost, LedgerServer]) -> None:
    served, ledger = host
    call = _first_call("mcp_slow_answer")
    scenario = load_scenario(ROOT / "scenarios" / "mcp_slow_answer.json")
    assert isinstance(_call(served, "mcp_slow_answer", 0, call["name"], call["arguments"], read_timeout=1.0), BaseException)
    deadline = time.monotonic() + MCP_SLOW_DELAY_S
    while time.monotonic() < deadline and '"withdrawn"' not in json.dumps(served.requests("mcp/mcp_slow_answer")):
        time.sleep(0.05)  # the server records the withdrawal as it hears the client's cancellation, after the client gave up
    summary = mcp_client(scenario, served.requests("mcp/mcp_slow_answer"), [])
    assert summary["calls"]["c1"]["answers"] == ["withdrawn"] and ledger.store.counts("mcp/mcp_slow_answer")["c1"]["effects"] == 1
    assert mcp_observable(scenario, {c: e["answers"] for c, e in summary["calls"].items()}, False) == {"withdrawn": ["c1"], "sent_again": {}}


def test_the_scenarios_approval_is_granted_by_the_server_for_the_waiting_call(host: tuple[McpHost, LedgerServer]) -> None:
    served, ledger = host
    call = _first_call("high_risk_approved")
    assert _call(served, "high_risk_approved", 0, call["name"], call["arguments"])["status"] == "approval_required"
    assert _call(served, "high_risk_approved", 1, call["name"], call["arguments"])["status"] == "ok"  # step 1 approves c1
    assert ledger.store.counts("mcp/high_risk_approved")["c1"]["effects"] == 1
    human = [r for r in served.requests("mcp/high_risk_approved") if "human" in r]
    assert human == [{"step": 1, "human": "approve", "call_id": "c1", "outcome": "granted"}]
    other = dict(call["arguments"], amount_cents=call["arguments"]["amount_cents"] + 1)  # the grant is for the model's arguments only
    assert _call(served, "high_risk_approved", 1, call["name"], other)["status"] == "approval_required"


def test_a_kill_in_a_tool_kills_the_steps_worker_before_a_new_server_starts(host: tuple[McpHost, LedgerServer]) -> None:
    served, ledger = host
    kills = socket.socket(fileno=os.dup(served.column_fd))  # the column's supervisor's end
    orders: list[dict[str, Any]] = []

    def supervisor() -> None:
        orders.append(json.loads(kills.recv(4096)))
        kills.sendall(b"killed\n")

    thread = threading.Thread(target=supervisor)
    thread.start()
    call = _first_call("decision_after_kill")  # tool.kill_before_effect on c1
    assert isinstance(_call(served, "decision_after_kill", 0, call["name"], call["arguments"]), BaseException)
    thread.join(30)
    assert orders == [{"kill": "mcp/decision_after_kill", "step": 0}]
    assert _call(served, "decision_after_kill", 1, call["name"], call["arguments"])["status"] == "ok"  # a new server, the fault spent
    assert [r["event"] for r in served.restarts] == ["tool_kill"] and not served.errors
    kills.close()


def test_a_call_that_will_kill_lets_its_turns_other_calls_be_answered_first(host: tuple[McpHost, LedgerServer]) -> None:
    """kill_in_batch_after_approved: the turn is ``transfer_funds`` t1 and ``put_note`` n1, whose tool kills. n1 sent
    first and t1 a moment later, at once as ``ToolNode`` sends them: t1 is received and answered before n1 is even
    recorded, then n1 kills."""
    served, _ = host
    kills = socket.socket(fileno=os.dup(served.column_fd))
    threading.Thread(target=lambda: (kills.recv(4096), kills.sendall(b"killed\n")), daemon=True).start()
    transfer, note = load_scenario(ROOT / "scenarios" / "kill_in_batch_after_approved.json").model_script[0]["tool_calls"]
    answers: dict[str, Any] = {}
    first = threading.Thread(target=lambda: answers.update(n1=_call(served, "kill_in_batch_after_approved", 0, note["name"], note["arguments"])))
    first.start()
    time.sleep(0.5)
    answers["t1"] = _call(served, "kill_in_batch_after_approved", 0, transfer["name"], transfer["arguments"])
    first.join(30)
    assert answers["t1"]["status"] == "approval_required" and isinstance(answers["n1"], BaseException)
    log = served.requests("mcp/kill_in_batch_after_approved")
    assert [(e["name"], e["n"]) for e in log if e.get("phase") == "received"] == [("transfer_funds", 1), ("put_note", 2)]
    kills.close()


def test_the_relay_is_a_stdio_server_for_both_protocol_eras(host: tuple[McpHost, LedgerServer]) -> None:
    served, _ = host
    env = {"AGENT_BENCH_MCP_URL": f"{served.base_url}/mcp/basic_react_loop/0/mcp", "AGENT_BENCH_MCP_TOKEN": served.token}
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    sessions = {
        "2025-06-18": [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
                       {"jsonrpc": "2.0", "method": "notifications/initialized"},
                       {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
        "2026-07-28": [{"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}},
                       {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get_weather", "arguments": {"city": "Paris"}, "_meta": meta}}],
    }  # fmt: skip
    for era, messages in sessions.items():
        lines = "".join(json.dumps(m) + "\n" for m in messages)
        done = subprocess.run([sys.executable, "-I", str(ROOT / "scripts" / "mcp_stdio_relay.py")], input=lines, capture_output=True, text=True, env=env, timeout=60)
        answers = sorted((json.loads(line) for line in done.stdout.splitlines()), key=lambda a: a["id"])  # requests run side by side
        assert [a["id"] for a in answers] == [1, 2] and "error" not in answers[0], (era, done.stdout, done.stderr)
        assert answers[1]["result"]["structuredContent"]["status"] == "ok", era
    scenario = load_scenario(ROOT / "scenarios" / "basic_react_loop.json")
    assert mcp_client(scenario, served.requests("mcp/basic_react_loop"), [])["relays"] == 2  # one stdio server process per session, each counted


def test_a_relay_is_counted_without_entering_its_step(host: tuple[McpHost, LedgerServer]) -> None:
    """A relay that only opens a session (as a client does over HTTP) meets no step: the scenario's approval of step 1 is
    not applied for it, as it is not for an HTTP client that sends nothing but its initialize."""
    served, _ = host
    env = {"AGENT_BENCH_MCP_URL": f"{served.base_url}/mcp/high_risk_approved/1/mcp", "AGENT_BENCH_MCP_TOKEN": served.token}
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    lines = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}) + "\n"
    done = subprocess.run([sys.executable, "-I", str(ROOT / "scripts" / "mcp_stdio_relay.py")], input=lines, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    requests = served.requests("mcp/high_risk_approved")
    assert [r["method"] for r in requests] == ["relay"] and not [r for r in requests if "human" in r]


def test_an_approval_grants_only_a_call_the_server_holds(host: tuple[McpHost, LedgerServer]) -> None:
    served, ledger = host  # a framework that asks its own human first sends the high-risk call only in the approve step
    call = _first_call("high_risk_approved")
    assert _call(served, "high_risk_approved", 1, call["name"], call["arguments"])["status"] == "approval_required"
    assert ledger.store.counts("mcp/high_risk_approved").get("c1", {}).get("effects", 0) == 0
    assert [r["outcome"] for r in served.requests("mcp/high_risk_approved") if "human" in r] == ["nothing_waiting"]


def test_the_relay_ends_when_the_answer_is_cut(host: tuple[McpHost, LedgerServer]) -> None:
    served, ledger = host
    env = {"AGENT_BENCH_MCP_URL": f"{served.base_url}/mcp/mcp_reset_mid_call/0/mcp", "AGENT_BENCH_MCP_TOKEN": served.token}
    call = _first_call("mcp_reset_mid_call")
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    messages = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": call["name"], "arguments": call["arguments"]}}]
    lines = "".join(json.dumps(m) + "\n" for m in messages) + "\n" * 3
    done = subprocess.run([sys.executable, "-I", str(ROOT / "scripts" / "mcp_stdio_relay.py")], input=lines, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 1 and [json.loads(line)["id"] for line in done.stdout.splitlines()] == [1]  # no answer to the call: it ended
    assert ledger.store.counts("mcp/mcp_reset_mid_call")["c1"]["effects"] == 1
