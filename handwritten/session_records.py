"""One session's own records at a tool boundary: calls waiting for the human, signed grants, held keys, idempotency.

They live in a private directory (``handwritten.private_files``): a restarted server that opens the same directory
continues the session, and the human's side (``scripts/approve_mcp.py``, the scenario driver) grants by writing there.

- A call waiting for approval is recorded with its key (or none: a call sent without a key); its ``pending_id`` names
  exactly that call, so a grant of it approves one tool with one set of arguments for that one key, once. A call sent
  without a key gets a server-assigned id in its own namespace (``srv:N``), which no client key can take.
- A grant is signed with the session's secret (``grant.key``, read only by the server and the human's side): a row
  written by anyone without the secret approves nothing. The signature cannot stop someone who can write the
  directory from rolling its files back (marking a taken grant unused, deleting a record): that is why the
  directory must be private, and is refused otherwise.
- A key is held while its call is decided and executed (``handwritten.key_locks``), so a second delivery of the same
  call, from any process of the session, is told it is in progress; a reconcile of a held key is refused.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Iterator
from contextlib import contextmanager
from hashlib import sha256
from pathlib import Path
from typing import Any, Literal

from .canonical import canonical_json
from .idempotency import RecordState, SqliteIdempotencyStore
from .key_locks import KeyLocks
from .private_files import private_directory, private_file, secret
from .storage import connect

SERVER_ID_PREFIX = "srv:"  # ids the boundary assigns to calls sent without a key; a client key may not start with it
GrantTaken = Literal["taken", "expired", "none", "full", "clash"]  # full, clash: the call cannot even wait (see _add_pending)
MAX_WAITING = 64  # calls waiting for the human in one session at once: a human reads every one of them
Reconciled = Literal["reconciled", "not_uncertain", "in_progress"]

_TABLES = """
CREATE TABLE IF NOT EXISTS pending_calls (pending_id TEXT PRIMARY KEY, tool TEXT NOT NULL, args TEXT NOT NULL,
                                          args_hash TEXT NOT NULL, call_key TEXT);
CREATE TABLE IF NOT EXISTS signed_grants (grant_id INTEGER PRIMARY KEY AUTOINCREMENT, tool TEXT NOT NULL,
                                          args_hash TEXT NOT NULL, call_key TEXT, expires_at REAL NOT NULL,
                                          used INTEGER NOT NULL DEFAULT 0, used_by TEXT, mac TEXT NOT NULL);
-- used_by: the call id that took the grant (audit: a keyless call's srv:N); the mac covers everything but used, used_by
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""
_GRANT_COLUMNS = "grant_id, tool, args_hash, call_key, expires_at, used, mac"


class SessionRecords:
    """One session's records, in files under its private directory (the directory's name is the session's id)."""

    def __init__(self, directory: Path) -> None:
        private_directory(directory.parent)  # the state directory: nobody else may list its sessions or swap one
        self.directory = private_directory(directory)
        self.session_id = directory.name
        self._secret = secret(directory / "grant.key")
        self._locks = KeyLocks(directory / "inflight.lock")
        self.idempotency = SqliteIdempotencyStore(str(private_file(directory / "idempotency.sqlite")))
        self._conn = connect(str(private_file(directory / "boundary.sqlite")))
        self._conn.executescript(_TABLES)
        self._closed = False

    def close(self) -> None:
        """Close the session's files (a second call does nothing); the keys this instance held are released."""
        if self._closed:
            return
        self._closed = True
        self._conn.close()
        self.idempotency.close()
        self._locks.close()

    # -- calls waiting for the human ---------------------------------------------------------------------------

    def _add_pending(self, tool: str, args: Any, digest: str, key: str | None) -> str | Literal["full", "clash"]:
        """The call waits for the human: its pending id (the same call, with the same key or none, waits once); ``full``
        when ``MAX_WAITING`` other calls wait already. The id is 128 bits of the call's hash, so nobody finds two calls
        that share one; a row under it that is another call's (written by someone else) is a ``clash``, never an answer."""
        pending_id = f"{tool}-{sha256(canonical_json([tool, digest, key]).encode()).hexdigest()[:32]}"
        found = self._conn.execute("SELECT tool, args_hash, call_key FROM pending_calls WHERE pending_id = ?", (pending_id,)).fetchone()
        if found is not None:
            return pending_id if tuple(found) == (tool, digest, key) else "clash"
        if self._conn.execute("SELECT count(*) FROM pending_calls").fetchone()[0] >= MAX_WAITING:
            return "full"
        self._conn.execute("INSERT INTO pending_calls VALUES (?, ?, ?, ?, ?)", (pending_id, tool, canonical_json(args), digest, key))
        return pending_id

    def pending(self) -> list[dict[str, Any]]:
        """The calls waiting for the human, oldest first: ``pending_id``, ``tool``, ``args``, ``args_hash``, ``key``."""
        return self._waiting("")

    def waiting(self, pending_id: str) -> dict[str, Any] | None:
        """The waiting call ``pending_id``, or None."""
        found = self._waiting("WHERE pending_id = ?", pending_id)
        return found[0] if found else None

    def _waiting(self, where: str, *values: str) -> list[dict[str, Any]]:
        rows = self._conn.execute(f"SELECT pending_id, tool, args, args_hash, call_key FROM pending_calls {where} ORDER BY rowid", values).fetchall()
        return [{"pending_id": p, "tool": t, "args": json.loads(a), "args_hash": h, "key": k} for p, t, a, h, k in rows]

    # -- grants: written by the human's side, taken by the boundary --------------------------------------------

    def grant(self, tool: str, digest: str, expires_at: float, key: str | None) -> int:
        """The human approves ``tool`` with the arguments hashed ``digest`` for the call sent with ``key`` (None: the next
        call with these arguments sent without a key), once, until ``expires_at``: a signed grant; its id."""
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            cursor = conn.execute(
                "INSERT INTO signed_grants (tool, args_hash, call_key, expires_at, mac) VALUES (?, ?, ?, ?, '')", (tool, digest, key, expires_at)
            )
            grant_id = int(cursor.lastrowid or 0)
            conn.execute("UPDATE signed_grants SET mac = ? WHERE grant_id = ?", (self._mac(grant_id, tool, digest, key, expires_at), grant_id))
            conn.execute("DELETE FROM pending_calls WHERE tool = ? AND args_hash = ? AND call_key IS ?", (tool, digest, key))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return grant_id

    def grant_pending(self, pending_id: str, expires_at: float) -> dict[str, Any] | None:
        """Grant the waiting call ``pending_id`` (see ``grant``): that call, or None when no such call waits."""
        call = self.waiting(pending_id)
        if call is not None:
            self.grant(call["tool"], call["args_hash"], expires_at, call["key"])
        return call

    def dismiss(self, pending_id: str) -> dict[str, Any] | None:
        """The human declines the waiting call ``pending_id``: it leaves the list (sent again, it waits again) and no grant
        is written. The call, or None when no such call waits."""
        call = self.waiting(pending_id)
        if call is not None:
            self._conn.execute("DELETE FROM pending_calls WHERE pending_id = ?", (pending_id,))
        return call

    def approved(self, key: str, tool: str, digest: str) -> bool:
        """Whether a grant for this key, tool and arguments was already taken. The boundary asks only when the key has
        no idempotency record yet (its later attempts go to that record): a server that died between taking the grant
        and recording the call leaves exactly this, and the call must not need a second grant."""
        rows = self._conn.execute(
            f"SELECT {_GRANT_COLUMNS} FROM signed_grants WHERE used = 1 AND call_key = ? AND tool = ? AND args_hash = ?", (key, tool, digest)
        ).fetchall()
        return any(self._signed(row) for row in rows)

    def take_grant(self, tool: str, args: Any, digest: str, key: str | None, call_id: str, now: float) -> tuple[GrantTaken, str | None]:
        """Use one signed, unused, unexpired grant for exactly this tool, arguments and key (once), for ``call_id``; when
        there is none the call waits: (``expired`` when the latest signed grant for it expired unused, else ``none``,
        and its pending id; ``full`` or ``clash`` and None when it cannot wait, see ``_add_pending``). One transaction for both, so a
        grant the human writes meanwhile is either taken now or finds the call waiting and removes it from the list:
        never a call that ran and still waits."""
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")  # two deliveries, or a delivery and the human, at once: one after the other
        try:
            rows = conn.execute(
                f"SELECT {_GRANT_COLUMNS} FROM signed_grants WHERE tool = ? AND args_hash = ? AND call_key IS ? ORDER BY grant_id", (tool, digest, key)
            ).fetchall()
            signed = [row for row in rows if self._signed(row)]
            usable = next((row for row in signed if not row[5] and row[4] > now), None)
            pending_id = None
            if usable is not None:
                conn.execute("UPDATE signed_grants SET used = 1, used_by = ? WHERE grant_id = ?", (call_id, usable[0]))
                conn.execute("DELETE FROM pending_calls WHERE tool = ? AND args_hash = ? AND call_key IS ?", (tool, digest, key))
            else:
                pending_id = self._add_pending(tool, args, digest, key)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        if usable is not None:
            return "taken", None
        match pending_id:
            case "full" | "clash":
                return pending_id, None
        return ("expired" if signed and not signed[-1][5] else "none"), pending_id

    def _mac(self, grant_id: int, tool: str, digest: str, key: str | None, expires_at: float) -> str:
        message = json.dumps([self.session_id, grant_id, tool, digest, key, repr(float(expires_at))])
        return hmac.new(self._secret, message.encode(), sha256).hexdigest()

    def _signed(self, row: tuple[Any, ...]) -> bool:
        grant_id, tool, digest, key, expires_at, _used, mac = row
        return isinstance(mac, str) and hmac.compare_digest(mac, self._mac(grant_id, tool, digest, key, expires_at))

    # -- ids, held keys, reconciliation -------------------------------------------------------------------------

    def next_call_id(self) -> str:
        """An id for a call sent without a key: every such call is new (``srv:1``, ``srv:2``, ...)."""
        cursor = self._conn.execute("INSERT INTO counters VALUES ('calls', 1) ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value")
        return f"{SERVER_ID_PREFIX}{cursor.fetchone()[0]}"  # one statement: two servers of one session never hand out the same id

    @contextmanager
    def hold(self, key: str) -> Iterator[bool]:
        """Hold ``key`` while its call is decided and runs: False when another delivery, in any process, holds it."""
        with self._locks.hold(key) as held:
            yield held

    def reconcile(self, call_id: str, outcome: str) -> Reconciled:
        """The operator settles an uncertain call (``confirmed`` | ``not_executed``). A record left in progress by a server
        that died is uncertain too; one whose call is still running (its key held) is not settled."""
        with self.hold(call_id) as held:
            if not held:
                return "in_progress"
            record = self.idempotency.get(call_id)
            if record is None or record.state not in (RecordState.UNCERTAIN, RecordState.IN_PROGRESS):
                return "not_uncertain"
            self.idempotency.resolve(call_id, outcome, {"reconciled": outcome})
            return "reconciled"
