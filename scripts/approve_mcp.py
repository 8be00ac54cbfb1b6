#!/usr/bin/env python3
"""The human's side of an MCP session: list the calls waiting for approval, grant one, settle an uncertain one.

    python scripts/approve_mcp.py                                  # list the calls waiting in the last-started session
    python scripts/approve_mcp.py --session ID                     # ... in session ID
    python scripts/approve_mcp.py --show PENDING_ID                # that call whole, as indented JSON
    python scripts/approve_mcp.py --grant PENDING_ID [--ttl 300]   # approve that one call (single use, expires)
    python scripts/approve_mcp.py --deny PENDING_ID                # decline it: off the list, no grant
    python scripts/approve_mcp.py --reconcile CALL_ID --outcome confirmed|not_executed

It writes to the session's files (``--state-dir``, as given to ``serve_mcp.py``), outside the protocol: no MCP client
can do what this does. Exit status: 0 done; 1 the call named is not waiting (or not uncertain, or still running);
2 bad usage or a state directory that is not to be trusted. A grant is signed with the session's secret and bound to the session, the tool, the arguments'
hash, the waiting call's key and its expiry. Without ``--session`` it acts on the session the last server started on
that state directory serves. A directory anyone else could write is refused, as the server refuses it.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from handwritten.private_files import UntrustedPath, private_directory  # noqa: E402
from handwritten.session_records import SessionRecords  # noqa: E402
from harness.column_side.mcp.cli import OneLineParser, fail, printable, seconds  # noqa: E402
from harness.column_side.mcp.session import DEFAULT_STATE_DIR, announced_session, session_dir  # noqa: E402
from harness.errors import HarnessError  # noqa: E402

TTL_S = 300.0  # how long a grant stays valid unless --ttl says otherwise


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description="Approve or settle calls of a served MCP session.")
    parser.add_argument("--state-dir", type=Path, default=DEFAULT_STATE_DIR)
    parser.add_argument("--session", type=printable, help="the session (default: the one the last server started on --state-dir serves)")
    actions = parser.add_mutually_exclusive_group()
    actions.add_argument("--show", type=printable, metavar="PENDING_ID", help="print this waiting call whole, as indented JSON")
    actions.add_argument("--grant", type=printable, metavar="PENDING_ID", help="approve this waiting call")
    actions.add_argument("--deny", type=printable, metavar="PENDING_ID", help="decline this waiting call: it leaves the list, no grant is written")
    actions.add_argument("--reconcile", type=printable, metavar="CALL_ID", help="settle this uncertain call")
    parser.add_argument("--ttl", type=seconds, help="with --grant: seconds the grant stays valid, positive and finite (default 300)")
    parser.add_argument("--outcome", choices=("confirmed", "not_executed"), help="with --reconcile: what happened")
    args = parser.parse_args(argv)
    if (args.reconcile is None) != (args.outcome is None):
        parser.error("--reconcile and --outcome go together")
    if args.ttl is not None and args.grant is None:
        parser.error("--ttl goes with --grant")
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
        status = _act(parser.prog, records, args)
        sys.stdout.flush()  # a full disk or a closed pipe shows here, not in an exit nobody catches
        return status
    except BrokenPipeError:  # the reader went away (| head): nothing more to say, and nothing left half-done
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        return fail(parser.prog, f"cannot write the output ({exc.strerror})")
    finally:
        records.close()


def _act(prog: str, records: SessionRecords, args: argparse.Namespace) -> int:
    """Exit status 0 when done; 1 when the call named is not waiting (or, to reconcile, not uncertain or still running)."""
    if args.reconcile:
        return _reconcile(prog, records, args.reconcile, args.outcome)
    named = args.show or args.grant or args.deny
    if named is None:
        listed = records.pending()
        print(f"session {records.session_id}: {len(listed) or 'no'} call{'' if len(listed) == 1 else 's'} waiting for approval", file=sys.stderr)
        for each in listed:
            print(_line(each))
        return 0
    call = records.waiting(named)
    if call is None:
        waiting = ", ".join(p["pending_id"] for p in records.pending()) or "none"
        print(f"{prog}: no call {named!r} is waiting in session {records.session_id} (granted or denied already?"
              f" waiting: {waiting})", file=sys.stderr)  # fmt: skip
        return 1
    if args.show:
        print(json.dumps(call, indent=2, sort_keys=True))  # escaped JSON, one argument a line: nothing hidden or redrawn
    elif args.deny:
        records.dismiss(named)
        print(f"denied {_line(call)}: it is no longer waiting, and sent again it waits again")
    else:
        ttl = args.ttl or TTL_S
        records.grant_pending(named, time.time() + ttl)
        print(f"granted {_line(call)}, once, for {ttl:g} s")
    return 0


def _reconcile(prog: str, records: SessionRecords, call_id: str, outcome: str) -> int:
    match records.reconcile(call_id, outcome):
        case "reconciled":
            print(f"reconciled {call_id}: {outcome}")
            return 0
        case "in_progress":
            print(f"{prog}: call {call_id!r} is still running: reconcile it once it has ended", file=sys.stderr)
        case "not_uncertain":
            print(f"{prog}: call {call_id!r} is not uncertain", file=sys.stderr)
    return 1


def _line(call: dict[str, Any]) -> str:
    """A waiting call on one line. What a client chose is shown as escaped JSON (no character of it can redraw the
    line), every argument's name is shown, and a long value is cut where ``--show`` gives it whole."""
    key = _short(call["key"]) if call["key"] else "(none)"
    return f"{call['pending_id']}  {call['tool']}  {_short(call['args'])}  key {key}"


def _short(value: Any, room: int = 64) -> str:
    if isinstance(value, str):
        return json.dumps(value[:room]) + (f"...(+{len(value) - room} characters: --show)" if len(value) > room else "")
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_short(k, room)}: {_short(v, room)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, list):
        more = f", ...(+{len(value) - 8} items: --show)" if len(value) > 8 else ""
        return "[" + ", ".join(_short(v, room) for v in value[:8]) + more + "]"
    return json.dumps(value)


if __name__ == "__main__":
    sys.exit(main())
