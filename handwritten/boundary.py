"""The tool boundary: the contract for a tool call that arrives from outside the engine's loop.

A protocol server (the MCP server in ``harness.column_side.mcp``) hands every call it receives to a ``ToolBoundary``.
The call passes size, schema, identity, policy, approval, checkpoint and execute, in that order, with the same
idempotency records as a call of the engine's own loop. A boundary is a protocol edge, not an authority:

- approval is a *grant* that the human's side writes into the session's own records (``SessionRecords.grant``),
  signed, bound to the session (its directory), the tool, the arguments' hash, the call's key and an expiry, and
  taken once. Nothing the caller sends can approve: an approval the caller attaches to its request is refused;
- a tool that acts for a user takes the user from the session; arguments naming another user are refused;
- a re-sent call is recognised by the key the caller sends; without one, every call is new (``srv:N``);
- while a call with a key is decided and executed its key is held: a second delivery meanwhile, from any process of
  the session, is answered ``in_progress``, never sent to the approval stage.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from . import events as ev
from .canonical import canonical_json, sha256_hex
from .idempotency import Conflict, Exhausted, InFlight, Replayed, Started, Uncertain
from .policy import Decision, Policy
from .schema import MAX_NESTING as MAX_NESTING  # deeper arguments are refused before the schema (its validator recurses)
from .schema import nesting_depth as nesting_depth  # both kept here for the MCP server's message bounds
from .session_records import MAX_WAITING, SERVER_ID_PREFIX, SessionRecords
from .tools import ToolContext, ToolRegistry, as_session_user

Status = Literal["ok", "replayed", "invalid_arguments", "unknown_tool", "denied", "approval_required", "refused", "in_progress", "uncertain", "error"]

MAX_KEY_CHARS = 256  # a caller's idempotency key: printable characters only (it is shown to the human who approves)
MAX_ARGUMENT_BYTES = 1 << 20  # a call's arguments as canonical JSON, in UTF-8: larger is refused before any check
# Why refused before any other check: ``arguments_too_deep``, ``arguments_too_large``, or ``invalid_arguments`` (not JSON).


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
        """Whether the caller should see the result as an error: anything but a run or a replay of one."""
        return self.status not in ("ok", "replayed")


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

    def withdrawn(self, result: BoundaryResult) -> None:
        """The caller withdrew the call ``result`` answers before the answer reached it (traced: it stands all the same)."""
        self._emit(ev.AnswerWithdrawn(result.call_id, result.tool))

    def _call(self, tool: str, arguments: Any, key: str | None, claimed_approval: bool) -> BoundaryResult:
        key = key or None  # an empty key is no key: the call is new, in grants and waiting calls as in its id
        if key is not None and not (len(key) <= MAX_KEY_CHARS and key.isprintable()):
            why = f"a key is at most {MAX_KEY_CHARS} printable characters (no control characters: a human reads it when approving)"
            return BoundaryResult("refused", "", tool, {"error": why}, "invalid_key")
        if key is not None and key.startswith(SERVER_ID_PREFIX):
            why = f"keys starting with {SERVER_ID_PREFIX!r} are the ids this server gives calls sent without a key"
            return BoundaryResult("refused", key, tool, {"error": why}, "reserved_key")
        call_id = key or self.records.next_call_id()
        unfit = _unfit(arguments)
        if unfit is not None:
            reason, why = unfit
            return BoundaryResult("invalid_arguments", call_id, tool, {"error": why}, reason)
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
        decision = self._policy.decide(tool, spec.risk)
        if decision is Decision.DENY:
            return BoundaryResult("denied", call_id, tool, {"error": f"refused by policy: {tool} is never allowed"}, "always_deny")
        if decision is Decision.NEEDS_APPROVAL and claimed_approval:  # whatever the caller sends, approval only comes from the human
            why = "an approval sent by the client is never accepted: approvals are granted out of band"
            return BoundaryResult("refused", call_id, tool, {"error": why}, "client_approval")
        if not Policy.needs_idempotency(decision):
            return self._run_read_only(tool, args, call_id)
        with self.records.hold(call_id) as held:
            if not held:
                why = "another delivery of this call is running now: send it again later for its result"
                return BoundaryResult("in_progress", call_id, tool, {"error": why}, "in_progress")
            return self._held(tool, args, key, call_id, decision)

    def _held(self, tool: str, args: Any, key: str | None, call_id: str, decision: Decision) -> BoundaryResult:
        """With the key held: a call its key already has a record for goes to that record (replayed, a conflict, a
        retry, uncertain); a new high-risk call first takes a grant of the human's for this very call."""
        digest = sha256_hex(canonical_json(args))
        if decision is Decision.NEEDS_APPROVAL and self.records.idempotency.get(call_id) is None and not self.records.approved(call_id, tool, digest):
            taken, pending_id = self.records.take_grant(tool, args, digest, key, call_id, self._clock())
            if taken == "full":
                why = f"{MAX_WAITING} calls of this session wait for a human already: this one cannot wait too until some are decided"
                return BoundaryResult("refused", call_id, tool, {"error": why}, "too_many_waiting")
            if taken == "clash":
                why = "another call waits under this call's pending id: the session's records were written by someone else"
                return BoundaryResult("refused", call_id, tool, {"error": why}, "pending_clash")
            if taken != "taken":
                reason = "approval_expired" if taken == "expired" else "approval_required"
                details = {"pending_id": pending_id, "tool": tool, "args_hash": digest, "session_id": self.session_id}
                why = "the approval granted for this call expired" if taken == "expired" else "a human must approve this call"
                return BoundaryResult("approval_required", call_id, tool, {"error": why, **details}, reason)
        # The key's record is bound to the tool as well as the arguments: the same key and arguments for another tool conflict.
        return self._run_once(tool, args, sha256_hex(canonical_json([tool, digest])), call_id)

    def _run_read_only(self, tool: str, args: Any, call_id: str) -> BoundaryResult:
        try:
            output = self.registry.get(tool).executor(args, ToolContext(self.session_id, call_id, None, 1))
        except Exception as exc:  # a tool error is a value for the caller
            return BoundaryResult("error", call_id, tool, {"error": _describe(exc)}, "tool_error")
        return BoundaryResult("ok", call_id, tool, output)

    def _run_once(self, tool: str, args: Any, digest: str, call_id: str) -> BoundaryResult:
        """At most one execution per key (the session's directory scopes the keys): the record committed in progress
        is the checkpoint before the effect. With the key held, a record found in progress is a call whose server died
        in it: uncertain."""
        key = call_id
        match self.records.idempotency.begin(key, digest, self._max_attempts):
            case Replayed(result=stored):
                return BoundaryResult("replayed", call_id, tool, json.loads(stored))
            case Conflict():
                why = "idempotency key already used with different arguments or for another tool"
                return BoundaryResult("refused", call_id, tool, {"error": why}, "key_conflict")
            case Exhausted(error=error):
                return BoundaryResult("error", call_id, tool, {"error": f"failed after {self._max_attempts} attempts: {error}"}, "exhausted")
            case InFlight() | Uncertain():
                why = "this call's outcome is unknown (it timed out, or its server died in it): reconcile it first"
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


def _unfit(arguments: Any) -> tuple[str, str] | None:
    """(reason, why) the arguments are refused before any other check (too deep, too large, not JSON), or None."""
    if nesting_depth(arguments, MAX_NESTING) > MAX_NESTING:
        return "arguments_too_deep", f"arguments nested deeper than {MAX_NESTING} levels"
    try:
        size = len(canonical_json(arguments).encode("utf-8"))
    except (TypeError, ValueError) as exc:  # NaN, an object JSON has no spelling for: no hash could bind it (a lone surrogate: the schema's)
        return "invalid_arguments", f"arguments are not JSON: {exc}"
    if size > MAX_ARGUMENT_BYTES:
        return "arguments_too_large", f"arguments of {size} bytes, larger than the {MAX_ARGUMENT_BYTES}-byte limit"
    return None


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
