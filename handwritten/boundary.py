"""The tool boundary: the contract for a tool call that arrives from outside the engine's loop.

A protocol server (the MCP server in ``harness.column_side.mcp``) hands every call it receives to a ``ToolBoundary``.
The call passes schema, identity, policy, approval, checkpoint and execute, in that order, with the same
idempotency records as a call of the engine's own loop. A boundary is a protocol edge, not an authority:

- approval is a *grant* that the human's side writes into the session's own records (``SessionRecords.grant``),
  bound to the session (its directory), the tool, the arguments' hash and an expiry, and taken once. Nothing the
  caller sends can approve: an approval the caller attaches to its request is refused;
- a tool that acts for a user takes the user from the session; arguments naming another user are refused;
- a re-sent call is recognised by the key the caller sends; without one, every call is new.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from . import events as ev
from .canonical import canonical_json, sha256_hex
from .idempotency import Conflict, Exhausted, InFlight, Replayed, SqliteIdempotencyStore, Started, Uncertain
from .policy import Decision, Policy
from .storage import connect
from .tools import ToolContext, ToolRegistry, as_session_user

Status = Literal["ok", "replayed", "invalid_arguments", "unknown_tool", "denied", "approval_required", "refused", "uncertain", "error"]
GrantTaken = Literal["taken", "expired", "none"]

_TABLES = """
CREATE TABLE IF NOT EXISTS pending (pending_id TEXT PRIMARY KEY, tool TEXT NOT NULL, args TEXT NOT NULL, args_hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS grants (grant_id INTEGER PRIMARY KEY AUTOINCREMENT, tool TEXT NOT NULL, args_hash TEXT NOT NULL,
                                   expires_at REAL NOT NULL, used INTEGER NOT NULL DEFAULT 0, call_id TEXT);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS approved_keys (call_id TEXT PRIMARY KEY, args_hash TEXT NOT NULL, grant_id INTEGER NOT NULL);
"""


@dataclass(frozen=True)
class BoundaryResult:
    """What a call at the boundary ended with: a value for the caller, never an exception.

    ``call_id``: the id the call ran (or would run) under: the caller's key, else one the boundary assigned;
    ``reason``: why it was refused or what it waits for; ``output``: the tool's output or the refusal's details
    (for ``approval_required``: the ``pending_id`` a human grants, the tool and the arguments' hash)."""

    status: Status
    call_id: str
    tool: str
    output: Any
    reason: str | None = None

    @property
    def is_error(self) -> bool:
        return self.status not in ("ok", "replayed")


class SessionRecords:
    """One session's own records, in SQLite files under its directory: pending calls, grants, counters, and the
    idempotency records. A restarted server opening the same directory continues the same session."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.idempotency = SqliteIdempotencyStore(str(directory / "idempotency.sqlite"))
        self._conn = connect(str(directory / "boundary.sqlite"))
        self._conn.executescript(_TABLES)

    def close(self) -> None:
        self._conn.close()
        self.idempotency.close()

    def add_pending(self, tool: str, args: Any, digest: str) -> str:
        """The call waits for the human: its pending id (``<tool>-<hash prefix>``: the same call waits once)."""
        pending_id = f"{tool}-{digest[:12]}"
        self._conn.execute("INSERT OR IGNORE INTO pending VALUES (?, ?, ?, ?)", (pending_id, tool, canonical_json(args), digest))
        return pending_id

    def pending(self) -> list[dict[str, Any]]:
        """The calls waiting for the human, oldest first."""
        rows = self._conn.execute("SELECT pending_id, tool, args, args_hash FROM pending ORDER BY rowid").fetchall()
        return [{"pending_id": p, "tool": t, "args": json.loads(a), "args_hash": h} for p, t, a, h in rows]

    def grant(self, tool: str, digest: str, expires_at: float, call_id: str | None = None) -> None:
        """The human approves ``tool`` with the arguments hashed ``digest`` in this session until ``expires_at``; with
        ``call_id`` (an approver that knows the call's key, as the engine's does) only a call sent with that key."""
        self._conn.execute("INSERT INTO grants (tool, args_hash, expires_at, call_id) VALUES (?, ?, ?, ?)", (tool, digest, expires_at, call_id))
        self._conn.execute("DELETE FROM pending WHERE tool = ? AND args_hash = ?", (tool, digest))

    def approved(self, call_id: str, digest: str) -> bool:
        """Whether a grant was taken for this key with these arguments: its later attempts (a retry after a failure
        before any effect, a reconciled ``not_executed``) are the same approved call and need no new grant."""
        row = self._conn.execute("SELECT 1 FROM approved_keys WHERE call_id = ? AND args_hash = ?", (call_id, digest)).fetchone()
        return row is not None

    def take_grant(self, tool: str, digest: str, now: float, call_id: str | None = None) -> GrantTaken:
        """Use one unused, unexpired grant for exactly this call (once), for the key ``call_id`` if the caller sent one;
        ``expired`` when there is none and the latest grant for this call expired unused."""
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")  # two deliveries at once: only one takes the grant
        try:
            row = conn.execute(
                "SELECT grant_id FROM grants WHERE tool = ? AND args_hash = ? AND used = 0 AND expires_at > ?"
                " AND (call_id IS NULL OR call_id = ?) ORDER BY grant_id",
                (tool, digest, now, call_id),
            ).fetchone()
            if row is not None:
                conn.execute("UPDATE grants SET used = 1 WHERE grant_id = ?", (row[0],))
                if call_id is not None:
                    conn.execute("INSERT OR REPLACE INTO approved_keys VALUES (?, ?, ?)", (call_id, digest, row[0]))
            latest = conn.execute(
                "SELECT used FROM grants WHERE tool = ? AND args_hash = ? AND (call_id IS NULL OR call_id = ?) ORDER BY grant_id DESC LIMIT 1",
                (tool, digest, call_id),
            ).fetchone()
            stale = row is None and latest is not None and latest[0] == 0  # the latest grant for this call expired unused
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return "taken" if row is not None else "expired" if stale else "none"

    def next_call_id(self) -> str:
        """An id for a call sent without a key: every such call is new (``call-1``, ``call-2``, ...)."""
        cursor = self._conn.execute("INSERT INTO counters VALUES ('calls', 1) ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value")
        return f"call-{cursor.fetchone()[0]}"  # one statement: two servers of one session never hand out the same id

    def reconcile(self, call_id: str, outcome: str) -> bool:
        """The operator settles an uncertain call (``confirmed`` | ``not_executed``); False if nothing was uncertain.
        (A record left in progress by a server that died is uncertain too.)"""
        record = self.idempotency.get(call_id)
        if record is None or record.state.value not in ("uncertain", "in_progress"):
            return False
        self.idempotency.resolve(call_id, outcome, {"reconciled": outcome})
        return True


class ToolBoundary:
    """Applies the contract to one call at a time, for one session and its user."""

    def __init__(
        self,
        registry: ToolRegistry,
        records: SessionRecords,
        session_id: str,
        user: str,
        clock: Callable[[], float],
        policy: Policy | None = None,
        max_attempts: int = 3,
        trace: Callable[[ev.Event], None] = lambda event: None,
    ) -> None:
        self.registry = registry
        self.records = records
        self.session_id = session_id
        self.user = user
        self._clock = clock
        self._policy = policy or Policy()
        self._max_attempts = max_attempts
        self._emit = trace

    def call(self, tool: str, arguments: Any, key: str | None = None, claimed_approval: bool = False) -> BoundaryResult:
        """One call: ``key`` recognises a re-sent call; ``claimed_approval`` says the caller attached an approval of its own."""
        result = self._call(tool, arguments, key, claimed_approval)
        self._emit(ev.BoundaryCall(result.call_id, tool, result.status, result.reason))
        return result

    def _call(self, tool: str, arguments: Any, key: str | None, claimed_approval: bool) -> BoundaryResult:
        call_id = key or self.records.next_call_id()
        if tool not in self.registry:
            return BoundaryResult("unknown_tool", call_id, tool, {"error": f"unknown tool {tool!r}"}, "unknown_tool")
        checked = self.registry.validator(tool).check(arguments)
        if not checked.ok:
            return BoundaryResult("invalid_arguments", call_id, tool, {"error": "invalid arguments", "details": list(checked.errors)}, "invalid_arguments")
        spec = self.registry.get(tool)
        args = as_session_user(spec, checked.args, self.user)  # the user comes from the session, never the arguments
        if args is None:
            why = f"{tool} acts for the session's user only; the arguments name {checked.args.get(spec.acts_for)!r}"
            return BoundaryResult("refused", call_id, tool, {"error": why}, "other_user")
        digest = sha256_hex(canonical_json(args))
        decision = self._policy.decide(tool, spec.risk)
        if decision is Decision.DENY:
            return BoundaryResult("denied", call_id, tool, {"error": f"refused by policy: {tool} is never allowed"}, "always_deny")
        if decision is Decision.NEEDS_APPROVAL:
            waiting = self._approval(tool, args, digest, key, call_id, claimed_approval)
            if waiting is not None:
                return waiting
        if not Policy.needs_idempotency(decision):
            return self._run_read_only(tool, args, call_id)
        return self._run_once(tool, args, digest, call_id)

    def _approval(self, tool: str, args: Any, digest: str, key: str | None, call_id: str, claimed: bool) -> BoundaryResult | None:
        """None when the call may run: a replay of a completed key, or a grant of the human's taken now."""
        if claimed:  # whatever the caller sends, approval only ever comes from the human's side
            why = "an approval sent by the client is never accepted: approvals are granted out of band"
            return BoundaryResult("refused", call_id, tool, {"error": why}, "client_approval")
        if key is not None and self.records.approved(key, digest):
            return None  # the approved call again: a replay of its result, or another attempt under its key
        taken = self.records.take_grant(tool, digest, self._clock(), key)
        if taken == "taken":
            return None
        pending_id = self.records.add_pending(tool, args, digest)
        reason = "approval_expired" if taken == "expired" else "approval_required"
        details = {"pending_id": pending_id, "tool": tool, "args_hash": digest, "session_id": self.session_id}
        why = "the approval granted for this call expired" if taken == "expired" else "a human must approve this call"
        return BoundaryResult("approval_required", call_id, tool, {"error": why, **details}, reason)

    def _run_read_only(self, tool: str, args: Any, call_id: str) -> BoundaryResult:
        try:
            output = self.registry.get(tool).executor(args, ToolContext(self.session_id, call_id, None, 1))
        except Exception as exc:  # a tool error is a value for the caller
            return BoundaryResult("error", call_id, tool, {"error": _describe(exc)}, "tool_error")
        return BoundaryResult("ok", call_id, tool, output)

    def _run_once(self, tool: str, args: Any, digest: str, call_id: str) -> BoundaryResult:
        """At most one execution per key (the session's directory scopes the keys): the record committed in progress
        is the checkpoint before the effect."""
        key = call_id
        match self.records.idempotency.begin(key, digest, self._max_attempts):
            case Replayed(result=stored):
                return BoundaryResult("replayed", call_id, tool, json.loads(stored))
            case Conflict():
                why = "idempotency key already used with different arguments"
                return BoundaryResult("refused", call_id, tool, {"error": why}, "key_conflict")
            case Exhausted(error=error):
                return BoundaryResult("error", call_id, tool, {"error": f"failed after {self._max_attempts} attempts: {error}"}, "exhausted")
            case InFlight() | Uncertain():
                why = "another delivery holds this call, or its outcome is unknown: reconcile it first"
                return BoundaryResult("uncertain", call_id, tool, {"error": why}, "reconcile_required")
            case Started(attempt=attempt):
                self._emit(ev.IntentCheckpointed(call_id, key))
                try:
                    output = self.registry.get(tool).executor(args, ToolContext(self.session_id, call_id, key, attempt))
                except TimeoutError as exc:
                    self.records.idempotency.mark_uncertain(key)
                    why = f"timed out after the executor was entered: {_describe(exc)}"
                    return BoundaryResult("uncertain", call_id, tool, {"error": why}, "reconcile_required")
                except Exception as exc:
                    self.records.idempotency.fail(key, _describe(exc))
                    return BoundaryResult("error", call_id, tool, {"error": _describe(exc), "attempt": attempt}, "tool_error")
                self.records.idempotency.complete(key, output)
                return BoundaryResult("ok", call_id, tool, output)
        raise AssertionError("unreachable: begin() answers with one of its outcomes")


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
