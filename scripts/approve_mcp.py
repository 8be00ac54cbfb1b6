#!/usr/bin/env python3
"""The human's side of an MCP session: list the calls waiting for approval, grant one, settle an uncertain one.

    python scripts/approve_mcp.py                                  # list the calls waiting in the last-started session
    python scripts/approve_mcp.py --session ID                     # ... in session ID
    python scripts/approve_mcp.py --grant PENDING_ID [--ttl 300]   # approve that one call (single use, expires)
    python scripts/approve_mcp.py --reconcile CALL_ID --outcome confirmed|not_executed

It writes to the session's files (``--state-dir``, as given to ``serve_mcp.py``), outside the protocol: no MCP client
can do what this does. A grant is signed with the session's secret and bound to the session, the tool, the arguments'
hash, the waiting call's key and its expiry. Without ``--session`` it acts on the session the last server started on
that state directory serves. A directory anyone else could write is refused, as the server refuses it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from handwritten.private_files import UntrustedPath, private_directory  # noqa: E402
from handwritten.session_records import SessionRecords  # noqa: E402
from harness.column_side.mcp.cli import OneLineParser, fail, seconds  # noqa: E402
from harness.column_side.mcp.session import DEFAULT_STATE_DIR, announced_session, session_dir  # noqa: E402
from harness.errors import HarnessError  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description="Approve or settle calls of a served MCP session.")
    parser.add_argument("--state-dir", type=Path, default=DEFAULT_STATE_DIR)
    parser.add_argument("--session", help="the session (default: the one the last server started on --state-dir serves)")
    parser.add_argument("--grant", metavar="PENDING_ID", help="approve this waiting call")
    parser.add_argument("--ttl", type=seconds, default=300.0, help="seconds the grant stays valid: positive, finite (default 300)")
    parser.add_argument("--reconcile", metavar="CALL_ID", help="settle this uncertain call")
    parser.add_argument("--outcome", choices=("confirmed", "not_executed"))
    args = parser.parse_args(argv)
    if args.reconcile and args.outcome is None:
        parser.error("--reconcile needs --outcome")
    if not os.path.lexists(args.state_dir):
        return fail(parser.prog, f"no state directory {args.state_dir}: start serve_mcp.py with it first")
    try:
        private_directory(args.state_dir)  # trusted before anything in it is read
        session = args.session or announced_session(args.state_dir)
        if session is None:
            return fail(parser.prog, f"no session served from {args.state_dir} yet; name one with --session")
        directory = session_dir(args.state_dir, session)
        if not os.path.lexists(directory):
            return fail(parser.prog, f"no session {session!r} under {args.state_dir}")
        records = SessionRecords(directory)
    except (HarnessError, UntrustedPath, OSError, sqlite3.Error) as exc:  # a path the system will not open, too long, ...
        return fail(parser.prog, str(exc))
    try:
        return _act(parser.prog, records, args.grant, args.ttl, args.reconcile, args.outcome)
    finally:
        records.close()


def _act(prog: str, records: SessionRecords, grant: str | None, ttl: float, reconcile: str | None, outcome: str | None) -> int:
    if grant:
        call = records.grant_pending(grant, time.time() + ttl)
        if call is None:
            waiting = ", ".join(p["pending_id"] for p in records.pending()) or "none"
            print(f"{prog}: no call {grant!r} is waiting for approval (waiting: {waiting})", file=sys.stderr)
            return 1
        key = f" sent with key {json.dumps(call['key'])}" if call["key"] else " sent without a key"
        print(f"granted {grant}: {call['tool']} {json.dumps(call['args'], sort_keys=True)}{key}, once, for {ttl:g} s")
    elif reconcile:
        match records.reconcile(reconcile, outcome or ""):
            case "reconciled":
                print(f"reconciled {reconcile}: {outcome}")
            case "in_progress":
                print(f"{prog}: call {reconcile!r} is still running: reconcile it once it has ended", file=sys.stderr)
                return 1
            case "not_uncertain":
                print(f"{prog}: call {reconcile!r} is not uncertain", file=sys.stderr)
                return 1
    else:
        for call in records.pending():  # everything a client chose is printed as JSON, escaped: it cannot redraw the line
            key = json.dumps(call["key"]) if call["key"] else "(none)"
            print(f"{call['pending_id']}  {call['tool']}  {json.dumps(call['args'], sort_keys=True)}  key {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
