"""How long a connection to one of the project's loopback HTTP servers may take, and how many it may hold.

Both servers (the runner's scripted OpenAI-compatible server, ``harness.runner_side.run.servers.wire``, and the MCP server's
Streamable HTTP, ``harness.column_side.mcp.server``) run uvicorn's h11 protocol. uvicorn bounds a request head's size
(h11's ``max_incomplete_event_size``) and how long an idle connection is kept after an answer (``timeout_keep_alive``),
but once any byte of a head has come it waits for the rest for ever, it gives a body no deadline at all, and its
``limit_concurrency`` answers 503 to a request over the limit while holding every connection that has not sent one. A
local client sending half a request head, or a body that never ends (a ``Content-Length`` never reached, a chunked
body never closed), on many connections, would hold a descriptor each until the process could open no file: the
runner's process for the wire server. ``bounded_protocol`` is uvicorn's h11 protocol with:

- a head deadline: a connection that has not sent a whole request head within ``head_timeout_s`` of its opening or of
  its last answer is closed (without an answer: a client that sends half a head is not reading one);
- a body deadline: a request whose body has not wholly arrived within ``body_timeout_s`` of its head is closed; the
  app, waiting for the rest, sees the client go away (``http.disconnect``);
- a cap: a connection accepted while ``max_connections`` are open closes the one that has waited longest for a request
  head (a flood that never sends one cannot keep out a client that does: another column's wire run), or, when every
  other one is mid-request, itself at once; so a flood holds at most the cap of descriptors.

A closed connection is never answered: what the server had of the request is dropped, and nothing is recorded of it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

HEAD_TIMEOUT_S = 5.0
"""How long a connection may take to send a whole request head, after it opens or after an answer. Every client of these
servers sends its head at once, in one write, over loopback: it arrives in well under a millisecond. Five seconds is
uvicorn's own ``timeout_keep_alive`` (how long it keeps an idle connection after an answer), so an idle client's
connection is closed at the moment it was before this deadline existed."""
BODY_TIMEOUT_S = 10.0
"""How long a request body may take to arrive whole after its head. The largest body either server takes (8 MiB on the
wire server, the MCP server's message limit) crosses loopback in milliseconds; ten seconds leaves a client that a
loaded machine has descheduled mid-body three orders of magnitude of room, and bounds how long a body that never
ends holds a connection."""
MAX_HEAD_BYTES = 16 * 1024
"""The largest request head (h11's own default, named so the bound is visible): the heads the openai client and the
MCP clients send are under 2 KiB."""


@dataclass(frozen=True)
class ConnectionBounds:
    """A server's connection limits (tests pass small deadlines; every server runs with its defaults)."""

    max_connections: int
    """Connections open at once; one accepted beyond it is closed at once."""
    head_timeout_s: float = HEAD_TIMEOUT_S
    """See ``HEAD_TIMEOUT_S``."""
    body_timeout_s: float = BODY_TIMEOUT_S
    """See ``BODY_TIMEOUT_S``."""

    def uvicorn_settings(self) -> dict[str, Any]:
        """The ``uvicorn.Config`` arguments that apply these bounds."""
        # No limit_concurrency: it answers 503 to a request whenever the connections reach it, idle ones included, so a
        # flood would keep every request out; the cap above bounds connections, and each holds one request at a time.
        return {"http": bounded_protocol(self), "h11_max_incomplete_event_size": MAX_HEAD_BYTES}


def bounded_protocol(bounds: ConnectionBounds) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with ``bounds`` (imported here: uvicorn comes with the ``mcp`` extra)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Bounded(H11Protocol):
        """One connection: at most one deadline runs at a time, the head's (``_waiting`` is "head") while the client
        owes a request head, the body's ("body") while it owes the rest of a body; none while the app answers."""

        _deadline: asyncio.TimerHandle | None = None
        _waiting: str | None = None
        _timed: object = None  # the request (uvicorn's cycle) the running deadline was set for; None before the first
        _opened = 0.0  # when the connection came (the loop's clock): the oldest idle one goes first at the cap

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            self._opened = self.loop.time()
            if len(self.connections) > bounds.max_connections and not _evict_idle(self):  # itself included: over the cap
                transport.close()  # every other one is mid-request: this one goes, before it holds anything
                return
            self.arm("head", bounds.head_timeout_s, None)

        def handle_events(self) -> None:
            super().handle_events()
            _follow_request(self, bounds)

        def on_response_complete(self) -> None:
            answered = self.cycle
            super().on_response_complete()  # may take a pipelined request's head at once (handle_events above)
            # Answered before its body came whole (a refusal: 401, 413), the body's deadline keeps running; else the next
            # head is owed.
            if self.cycle is answered and not self.transport.is_closing() and self._waiting != "body":
                self.arm("head", bounds.head_timeout_s, answered)

        def connection_lost(self, exc: Exception | None) -> None:
            self.disarm()
            super().connection_lost(exc)

        def arm(self, waiting: str, seconds: float, cycle: object) -> None:
            self.disarm()
            self._waiting, self._timed = waiting, cycle
            self._deadline = self.loop.call_later(seconds, _expired, self, waiting, cycle)

        def disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline, self._waiting = None, None

    return Bounded


def _evict_idle(newcomer: Any) -> bool:
    """At the cap, close the connection that has waited longest for a request head (none in progress), so that a flood of
    connections that never send one cannot keep out a client that does (another column's wire run): False when every
    other connection is mid-request."""
    idle = [p for p in newcomer.connections if p is not newcomer and p._waiting == "head" and not p.transport.is_closing()]
    if not idle:
        return False
    oldest = min(idle, key=lambda p: p._opened)
    oldest.transport.close()
    newcomer.connections.discard(oldest)  # counted out now, not at its connection_lost: its place is the newcomer's
    return True


def _follow_request(protocol: Any, bounds: ConnectionBounds) -> None:
    """After uvicorn took what a connection sent: a new request head starts its body's deadline (when a body is still
    owed), and a body come whole ends it (then, if the request was answered already, the next head is owed)."""
    import h11

    if protocol.cycle is not protocol._timed:  # a new request head came (uvicorn made its cycle)
        protocol.disarm()
        protocol._timed = protocol.cycle
        if protocol.conn.their_state is h11.SEND_BODY:
            protocol.arm("body", bounds.body_timeout_s, protocol.cycle)
    elif protocol._waiting == "body" and protocol.conn.their_state is not h11.SEND_BODY:
        protocol.disarm()
        if protocol.cycle.response_complete:
            protocol.arm("head", bounds.head_timeout_s, protocol.cycle)


def _expired(protocol: Any, waiting: str, cycle: object) -> None:
    """A deadline's end: the connection is closed if what it waited for is still owed (no new request head since it was
    set; for a body, the body still incomplete)."""
    import h11

    transport = protocol.transport
    # After an upgrade (a websocket) the transport is another protocol's: not this one's to close.
    if transport.is_closing() or transport.get_protocol() is not protocol or protocol.cycle is not cycle:
        return
    if waiting == "head" or protocol.conn.their_state is h11.SEND_BODY:
        transport.close()
