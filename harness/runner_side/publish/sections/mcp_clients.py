"""FINDINGS.md's tables of what the runner's MCP server counted of each framework's MCP client (``mcp`` mode), read
from each record's ``mcp_client`` (``harness.runner_side.observe.mcp``) and cells: per server fault, what became of the
call beside the engine's own client; over the whole mode, what each client sent. The mode's rule findings follow them
(``findings``)."""

from __future__ import annotations

from typing import Any

MCP_FAULTS = ("mcp_server_dies_after_effect", "mcp_reset_mid_call", "mcp_slow_answer")
"""The scenarios of the runner's MCP server's fault points (``harness.scenarios.MCP_POINTS``), in FINDINGS.md's table."""
LISTED = "basic_react_loop"
"""The scenario whose ``tools/list`` and stdio server counts FINDINGS.md gives: read-only calls over several model
turns, over stdio (``adapters.mcp_endpoint.STDIO_SCENARIOS``)."""
PROTOCOL_META = "io.modelcontextprotocol/"


def fault_table(documents: dict[str, dict[str, Any]], measured: list[str]) -> list[str]:
    """Per fault scenario every measured framework plays, what the server and the ledger counted, the engine's row first."""
    faults = [key for key in MCP_FAULTS if all(key in documents[n]["modes"]["mcp"].get("scenarios", {}) for n in measured)]
    lines = ["", "What the server counted for each call where it met a fault after the call's effect: the `tools/call` requests the "
             "client sent (what became of each answer: `died`, the server died before it; `cut`, the connection dropped with it; "
             "`withdrawn`, the client stopped waiting for it; `ok:slow`, it came late), how many carried an idempotency key, the effects "
             "in the ledger, and how the run ended.", "",
             "| client | " + " | ".join(f"`{k}`" for k in faults) + " |", "|---|" + "---|" * len(faults)]
    engine = documents[measured[0]]["modes"]["mcp"]["scenarios"]
    lines.append("| handwritten_mcp (the engine's) | " + " | ".join(_counted(engine[k], "handwritten") for k in faults) + " |")
    return lines + [f"| {n} | " + " | ".join(_counted(documents[n]["modes"]["mcp"]["scenarios"][k], "framework") for k in faults) + " |" for n in measured]


def sent_table(documents: dict[str, dict[str, Any]], measured: list[str]) -> list[str]:
    """What each measured framework's client sent over every scenario of the mode."""
    lines = ["", f"What each client sent over every scenario of the mode: in `{LISTED}` (read-only calls over several model turns, over "
             "stdio), its `tools/list` requests and the stdio server processes it started, for listing the tools and for its `tools/call` "
             "requests (each a relay of the harness's to the server); the `tools/call` requests that carried an idempotency key, the `_meta` keys on its calls besides "
             f"the protocol's own (`{PROTOCOL_META}`), and the tools whose parameters, as the framework gave them to the model, differ from "
             "the server's `inputSchema` (as each run first gave them).", "",
             f"| client | `tools/list` in `{LISTED}` | stdio servers it started there (its calls) | calls with a key | other `_meta` keys on its calls "
             "| parameters changed |", "|---|---:|---:|---:|---|---|"]
    return lines + [_sent(n, documents[n]["modes"]["mcp"]["scenarios"]) for n in measured]


def _sent(name: str, records: dict[str, Any]) -> str:
    """One row of the table of what a client sent: from each record's ``mcp_client`` (``harness.runner_side.observe.mcp``)."""
    clients, listed = [r["mcp_client"] for r in records.values() if r.get("mcp_client")], records.get(LISTED, {}).get("mcp_client") or {}
    started = f"{listed.get('relays', '?')} ({sum(c['sent'] for c in listed.get('calls', {}).values())} calls)"
    keyed = sum(c["keys"] for client in clients for c in client["calls"].values())
    meta = sorted({m for client in clients for m in client["meta"] if not m.startswith(PROTOCOL_META)})
    firsts = [next((e for e in r.get("trace", ()) if e.get("kind") == "mcp_tools"), None) for r in records.values()]
    given = {tool for e in firsts if e is not None for tool in e["tools"]}  # what ``mcp_client.schemas`` compared: each run's first
    changed = sorted({tool for client in clients for tool in client["schemas"]})
    schemas = ", ".join(f"`{t}`" for t in changed) if changed else f"none of {len(given)}" if given else "no tool given"
    return f"| {name} | {listed.get('lists', '?')} | {started} | {keyed} | {', '.join(f'`{m}`' for m in meta) or 'none'} | {schemas} |"


def _counted(record: dict[str, Any], side: str) -> str:
    """One cell of the mcp table: per call, what the server's log counted (the framework's side only: the engine's own
    client is not logged there) and the ledger's effects, then the run's final status."""
    calls = (record.get("mcp_client") or {}).get("calls", {}) if side == "framework" else {}
    effects = {cid: c.get("effects", 0) for cid, c in (record["columns"]["side_effects"][side] or {}).items()}
    parts = [f"{cid}: " + (f"sent {calls[cid]['sent']} ({', '.join(calls[cid]['answers'])}), {calls[cid]['keys']} with a key, " if cid in calls else "")
             + f"{effects.get(cid, 0)} effect{'' if effects.get(cid, 0) == 1 else 's'}" for cid in sorted(set(effects) | set(calls))]
    return f"{'; '.join(parts) or 'no call'}; ended {record['columns']['status'][side]}"
