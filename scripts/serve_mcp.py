#!/usr/bin/env python3
"""Serve the fixture tools over MCP, every call through the same contract as a local call.

    python scripts/serve_mcp.py                      # stdio, session "mcp-session", state in runs/mcp-state/
    python scripts/serve_mcp.py --http 8765          # Streamable HTTP at http://127.0.0.1:8765/mcp

One server serves one session (``--session``; over Streamable HTTP without ``--session``, each HTTP session is
its own), with its state in files under ``--state-dir``: a restarted server continues the same session. A
high-risk call answers ``approval_required`` with a ``pending_id``; a human grants it out of band with
``scripts/approve_mcp.py``, and the same call sent again then runs once. Needs the ``mcp`` extra
(``pip install -e ".[mcp]"``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from handwritten.boundary import ToolBoundary  # noqa: E402
from harness.column_side.mcp.session import DEFAULT_SESSION, DEFAULT_STATE_DIR, HarnessWiring, open_boundary  # noqa: E402
from harness.errors import HarnessError  # noqa: E402
from harness.fixture_tools import FIXTURE_TOOLS  # noqa: E402
from harness.scenarios import DEFAULT_USER  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the fixture tools over MCP (stdio by default).")
    parser.add_argument("--state-dir", type=Path, default=DEFAULT_STATE_DIR, help="where sessions keep their files (default: runs/mcp-state)")
    parser.add_argument("--session", help=f"the session served (default: {DEFAULT_SESSION}; over --http: each HTTP session)")
    parser.add_argument("--user", default=DEFAULT_USER, help=f"the session's user: tools that act for a user act for this one (default: {DEFAULT_USER})")
    parser.add_argument("--tools", help="comma-separated tool names (default: every fixture tool)")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT at /mcp instead of stdio")
    args = parser.parse_args(argv)
    try:
        from harness.column_side.mcp.server import build_server, serve_http, serve_stdio
    except ImportError as exc:
        print(f"serve_mcp.py: the MCP SDK is missing ({exc}); install the extra: pip install -e '.[mcp]'", file=sys.stderr)
        return 2
    tools = args.tools.split(",") if args.tools else list(FIXTURE_TOOLS)
    wiring = HarnessWiring.from_env()
    opened: dict[str, ToolBoundary] = {}

    def boundary_for(transport_session: str | None) -> ToolBoundary:
        session = args.session or transport_session or DEFAULT_SESSION
        if session not in opened:
            opened[session] = open_boundary(args.state_dir, session, args.user, tools, wiring)
        return opened[session]

    try:  # a bad session id or tool name fails now, not at the first call
        boundary_for(None)
    except HarnessError as exc:
        print(f"serve_mcp.py: {exc}", file=sys.stderr)
        return 2
    server = build_server(boundary_for)
    if args.http is not None:
        serve_http(server, args.http)
    else:
        serve_stdio(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
