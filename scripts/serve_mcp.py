#!/usr/bin/env python3
"""Serve the fixture tools over MCP, every call through the same contract as a local call.

    python scripts/serve_mcp.py                      # stdio; a new session, state in runs/mcp-state/
    python scripts/serve_mcp.py --session desk-1     # stdio; session desk-1 (a restarted server continues it)
    python scripts/serve_mcp.py --http 8765          # Streamable HTTP at http://127.0.0.1:8765/mcp, bearer token

One server process serves one session: ``--session``, or a new one named with ``secrets`` when absent. Its state
lives in files under ``--state-dir`` (private to this user: the server refuses a directory anyone else could write),
so a restarted server continues the same session. At start it prints the session (and over HTTP the bearer token
every request must carry) on stderr and writes them, 0600, into the state directory (``session``, ``http-token``).
A high-risk call answers ``approval_required`` with a ``pending_id``; a human grants it out of band with
``scripts/approve_mcp.py``, and the same call sent again then runs once. Needs the ``mcp`` extra
(``pip install -e ".[mcp]"``).
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from handwritten.private_files import UntrustedPath  # noqa: E402
from harness.column_side.mcp.cli import OneLineParser, bound, fail, port  # noqa: E402
from harness.column_side.mcp.session import DEFAULT_STATE_DIR, TOKEN_FILE, HarnessWiring, announce, new_session_id, new_token, open_boundary, session_dir  # noqa: E402
from harness.errors import HarnessError  # noqa: E402
from harness.fixture_tools import FIXTURE_TOOLS  # noqa: E402
from harness.scenarios import DEFAULT_USER  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    os.umask(0o077)  # whatever this process creates (SQLite's journal files too) is the server user's alone
    parser = OneLineParser(description="Serve the fixture tools over MCP (stdio by default).")
    parser.add_argument("--state-dir", type=Path, default=DEFAULT_STATE_DIR, help="where sessions keep their files (default: runs/mcp-state)")
    parser.add_argument("--session", help="the session served (default: a new one, named at random and printed)")
    parser.add_argument("--user", default=DEFAULT_USER, help=f"the session's user: tools that act for a user act for this one (default: {DEFAULT_USER})")
    parser.add_argument("--tools", help="comma-separated tool names (default: every fixture tool)")
    parser.add_argument("--http", type=port, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT at /mcp instead of stdio")
    args = parser.parse_args(argv)
    session = args.session or new_session_id()
    try:
        wiring = HarnessWiring.from_env()
        session_dir(args.state_dir, session)  # a bad id fails before anything is written
        sock = bound(args.http) if args.http is not None else None  # so does a port that is taken
    except OSError as exc:
        return fail(parser.prog, f"--http {args.http}: cannot listen on 127.0.0.1:{args.http} ({exc.strerror})")
    except HarnessError as exc:
        return fail(parser.prog, str(exc))
    try:
        tools = args.tools.split(",") if args.tools else list(FIXTURE_TOOLS)
        fired: list[str] = []  # the MCP faults a scenario run's tools meet, acted on as the server answers
        boundary = open_boundary(args.state_dir, session, args.user, tools, wiring, fired)
        token = new_token() if sock is not None else None
        announce(args.state_dir, session, token)
    except (HarnessError, UntrustedPath, OSError, sqlite3.Error) as exc:  # a path the system will not open, too long, ...
        return fail(parser.prog, str(exc))
    try:  # after the checks, which need no SDK (its import is most of a start)
        from harness.column_side.mcp.server import build_server, serve_http, serve_stdio
    except ImportError as exc:
        return fail(parser.prog, f"the MCP SDK is missing ({exc}); install the extra: pip install -e '.[mcp]'")
    server = build_server(boundary, fired)
    if sock is None or token is None:
        if wiring is None:  # a server a scenario run started has nobody to tell
            print(f"{parser.prog}: serving session {session} over stdio (state in {args.state_dir / session})", file=sys.stderr)
        serve_stdio(server)
        return 0
    print(f"{parser.prog}: serving session {session} at http://127.0.0.1:{args.http}/mcp: send Authorization: Bearer {token}"
          f" (also in {args.state_dir / TOKEN_FILE})", file=sys.stderr)  # fmt: skip
    serve_http(server, sock, token)
    return 0


if __name__ == "__main__":
    sys.exit(main())
