#!/usr/bin/env python3
"""The human's side of an MCP session: list the calls waiting for approval, grant one, settle an uncertain one.

    python scripts/approve_mcp.py --session ID                     # list pending calls
    python scripts/approve_mcp.py --session ID --grant PENDING_ID  # approve one (single use, expires after --ttl)
    python scripts/approve_mcp.py --session ID --reconcile CALL_ID --outcome confirmed|not_executed

It writes to the session's files (``--state-dir``, as given to ``serve_mcp.py``), outside the protocol: no MCP
client can do what this does. A grant is bound to the session, the tool, the arguments' hash and its expiry.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from handwritten.boundary import SessionRecords  # noqa: E402
from harness.column_side.mcp.session import DEFAULT_SESSION, DEFAULT_STATE_DIR, session_dir  # noqa: E402
from harness.errors import HarnessError  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Approve or settle calls of a served MCP session.")
    parser.add_argument("--state-dir", type=Path, default=DEFAULT_STATE_DIR)
    parser.add_argument("--session", default=DEFAULT_SESSION)
    parser.add_argument("--grant", metavar="PENDING_ID", help="approve this pending call")
    parser.add_argument("--ttl", type=float, default=300.0, help="seconds the grant stays valid (default 300)")
    parser.add_argument("--reconcile", metavar="CALL_ID", help="settle this uncertain call")
    parser.add_argument("--outcome", choices=("confirmed", "not_executed"))
    args = parser.parse_args(argv)
    try:
        directory = session_dir(args.state_dir, args.session)
    except HarnessError as exc:
        parser.error(str(exc))
    if not directory.is_dir():
        print(f"approve_mcp.py: no session {args.session!r} under {args.state_dir}", file=sys.stderr)
        return 2
    records = SessionRecords(directory)
    try:
        if args.grant:
            waiting = {p["pending_id"]: p for p in records.pending()}
            if args.grant not in waiting:
                print(f"approve_mcp.py: no pending call {args.grant!r} (pending: {', '.join(waiting) or 'none'})", file=sys.stderr)
                return 1
            call = waiting[args.grant]
            records.grant(call["tool"], call["args_hash"], time.time() + args.ttl)
            print(f"granted {args.grant}: {call['tool']} {json.dumps(call['args'], sort_keys=True)} for {args.ttl:.0f} s, once")
        elif args.reconcile:
            if args.outcome is None:
                parser.error("--reconcile needs --outcome")
            if not records.reconcile(args.reconcile, args.outcome):
                print(f"approve_mcp.py: call {args.reconcile!r} is not uncertain", file=sys.stderr)
                return 1
            print(f"reconciled {args.reconcile}: {args.outcome}")
        else:
            for call in records.pending():
                print(f"{call['pending_id']}  {call['tool']}  {json.dumps(call['args'], sort_keys=True)}")
    finally:
        records.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
