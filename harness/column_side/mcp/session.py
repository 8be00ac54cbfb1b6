"""A served session: its directory of files, and the tool boundary over the fixture world it serves.

A session's records (pending calls, signed grants, idempotency records, and outside a scenario run its own ledger)
live in ``<state dir>/<session id>/``, both directories private to the server's user (``handwritten.private_files``):
a restarted server that opens the same directory continues the same session, and the human's side
(``scripts/approve_mcp.py``, or the scenario driver) grants approvals by writing there. The server that starts last
on a state directory writes its session id (``session``) and, over HTTP, its bearer token (``http-token``) beside
the sessions, ``0600``: that is where ``approve_mcp.py`` and a host's configuration read them.

Inside a scenario run the harness starts the server with ``HARNESS_ENV`` set (JSON: the run's scratch directory,
its faults, the descriptor of a ledger channel its worker opened for the step and left to it, the driver's clock, the
session's user): the tools then append to the
runner's ledger, meet the scenario's faults (a kill ends the server process) and read the driver's clock.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from handwritten.boundary import ToolBoundary
from handwritten.events import Event
from handwritten.private_files import private_directory, private_file, read_private, write_private
from handwritten.session_records import SessionRecords
from handwritten.tools import ToolRegistry
from harness.canonical_io import canonical_line
from harness.column_side.fixtures.world import FixtureWorld
from harness.errors import HarnessError
from harness.fixture_tools import FIXTURE_TOOLS
from harness.ledger import LocalLedger, bind_worker
from harness.scenarios import Fault

HARNESS_ENV = "AGENT_BENCH_MCP_HARNESS"
DEFAULT_STATE_DIR = Path(__file__).resolve().parents[3] / "runs" / "mcp-state"  # git-ignored, in the repository
SESSION_FILE = "session"  # in the state directory: the id of the session the last server started there serves
TOKEN_FILE = "http-token"  # beside it: that server's bearer token, when it serves Streamable HTTP
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


@dataclass(frozen=True)
class HarnessWiring:
    """How a server started by a scenario run reaches the run's world (passed in ``HARNESS_ENV``)."""

    scratch: str
    faults: list[dict[str, Any]]
    ledger: tuple[int, str, int]  # the runner's ledger: a channel's inherited descriptor, its run, its driver step
    now: float
    trace: str  # the run's trace file: the server's events are appended, tagged with the driver step

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @staticmethod
    def from_env() -> HarnessWiring | None:
        """The wiring a scenario run passed in ``HARNESS_ENV`` (None when it is not set); a value that is not the
        harness's is refused (``HarnessError``), never half-used."""
        raw = os.environ.get(HARNESS_ENV)
        if not raw:
            return None
        try:
            data = json.loads(raw)
            fd, run, step = data["ledger"]
            return HarnessWiring(str(data["scratch"]), list(data["faults"]), (int(fd), str(run), int(step)), float(data["now"]), str(data["trace"]))
        except (ValueError, TypeError, KeyError) as exc:
            raise HarnessError(f"{HARNESS_ENV} is set but is not the harness's wiring ({type(exc).__name__}: {exc}); unset it") from None


def session_dir(state_dir: Path, session_id: str) -> Path:
    """The session's directory; an id that is not a plain name (a path, a trailing newline) is refused."""
    if not _SESSION_ID.fullmatch(session_id):
        raise HarnessError(f"session id {session_id!r}: use letters, digits, '.', '_' and '-' (at most 128)")
    if session_id in (SESSION_FILE, TOKEN_FILE):
        raise HarnessError(f"session id {session_id!r}: the name of a file of the state directory; choose another")
    return state_dir / session_id


def new_session_id() -> str:
    """A session id nobody can guess, for a server started without ``--session``."""
    return f"mcp-{secrets.token_hex(16)}"


def new_token() -> str:
    """A bearer token for a server's Streamable HTTP clients."""
    return secrets.token_urlsafe(32)


def announce(state_dir: Path, session_id: str, token: str | None) -> None:
    """Write the served session's id (and the HTTP token) into the state directory for the human's side and hosts."""
    private_directory(state_dir)
    write_private(state_dir / SESSION_FILE, session_id)  # no newline: the file's bytes are the value, whatever reads them
    if token is not None:
        write_private(state_dir / TOKEN_FILE, token)


def announced_session(state_dir: Path) -> str | None:
    """The id of the session the last server started on ``state_dir`` serves, if one wrote it."""
    if not state_dir.is_dir():
        return None
    text = read_private(state_dir / SESSION_FILE)
    return text.strip() if text else None


def open_boundary(
    state_dir: Path, session_id: str, user: str, tools: list[str], wiring: HarnessWiring | None, answer_faults: list[str] | None = None
) -> ToolBoundary:
    """The boundary a server applies to every call of this session. In a scenario run, the MCP faults that fire in a
    call's tool (``harness.scenarios.MCP_POINTS``) are appended to ``answer_faults``, for the server to act on as it
    answers the call."""
    unknown = [t for t in tools if t not in FIXTURE_TOOLS]
    if unknown:
        raise HarnessError(f"unknown tools {unknown} (known: {', '.join(sorted(FIXTURE_TOOLS))})")
    directory = session_dir(state_dir, session_id)
    records = SessionRecords(directory)
    if wiring is None:  # a server of one's own: its ledger is a file of the session, its clock the wall clock
        world = FixtureWorld(directory, [], may_kill=False, ledger=LocalLedger(private_file(directory / "ledger.sqlite")))
        return ToolBoundary(ToolRegistry(world.tool_specs(tools)), records, session_id, user, clock=time.time)
    fd, run, step = wiring.ledger
    bind_worker(None, socket.socket(fileno=fd))  # this process is part of the driver step: its effects are the step's
    world = FixtureWorld(Path(wiring.scratch), [Fault.from_json(f) for f in wiring.faults], may_kill=True)
    if answer_faults is not None:
        world.faults.mcp_answer = answer_faults.append
    trace = open(wiring.trace, "a", encoding="utf-8", buffering=1)  # line-buffered: survives the server's kill

    def sink(event: Event) -> None:
        trace.write(canonical_line({"driver_step": step, "source": "mcp_server", **event.to_json()}))

    return ToolBoundary(ToolRegistry(world.tool_specs(tools)), records, session_id, user, clock=lambda: wiring.now, trace=sink)
