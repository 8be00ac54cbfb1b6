"""The engine's tools taken from an MCP server it forked and supervises over stdio.

``McpTools`` speaks MCP to a server forked from this process (``forked.ForkedServer``: its stdin and stdout two
pipes to this one), lists its tools and turns each into a ``ToolSpec`` whose executor sends ``tools/call`` with the
engine's call id as the idempotency key in ``_meta``. The engine is synchronous; the SDK's client runs on an event
loop in a thread (an anyio blocking portal), started after the fork.

The child is this process's own (not the SDK's stdio client, which keeps the process to itself): when a call
fails because the server died, its exit code is read here. A fault kill (``FAULT_EXIT_CODE``) is a crash of the
system under test: this process, the server's supervisor, goes down with the same exit code, so the driver records
the same crash as for an engine whose tool ran in process. An MCP fault's end (``MCP_FAULT_EXIT_CODE``: the server died
or dropped the call after its effect) is the call's lost answer, ``AnswerLost``, which the engine holds uncertain as it
does in process; any other exit is a harness error, never a tool result.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager, asynccontextmanager
from typing import Any, cast

import anyio
import mcp.types as types
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client
from mcp.client import Transport
from mcp.shared.message import SessionMessage
from mcp_types import RequestParamsMeta

from handwritten.tools import RiskClass, ToolContext, ToolSpec
from harness.column_side.fixtures.faults import FAULT_EXIT_CODE, MCP_FAULT_EXIT_CODE, AnswerLost
from harness.column_side.mcp import ACTS_FOR_META, KEY_META, RISK_META
from harness.column_side.mcp.forked import ForkedServer
from harness.errors import HarnessError

EXIT_WAIT_S = 10.0
EXIT_POLL_S = 0.001  # a server whose input ended exits within milliseconds


class ServerDied(HarnessError):
    """The MCP server ended while a call was under way, with an exit code that is no fault's."""


class ForkedStdio:
    """The stdio transport to a server forked from this process (``ForkedServer``), over its two pipes."""

    def __init__(self, server: ForkedServer) -> None:
        self.server = server

    @asynccontextmanager
    async def streams(self) -> AsyncIterator[Any]:
        to_server, from_server = self.server.to_server, self.server.from_server
        read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
        writing, written = anyio.CancelScope(), anyio.Event()

        async def read_lines() -> None:
            async with read_send:
                buffer = b""
                try:
                    while chunk := await _read(from_server):  # b"": the server closed its stdout, it is ending
                        *lines, buffer = (buffer + chunk).split(b"\n")
                        for line in lines:
                            await read_send.send(SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False)))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    pass  # our own shutdown: the session sees the read side close

        async def write_lines() -> None:
            with writing:
                async with write_receive:
                    try:
                        async for message in write_receive:
                            await _write(to_server, (message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode())
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                        await read_send.aclose()  # the server is gone: no request may wait forever
            written.set()

        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(read_lines)
                tasks.start_soon(write_lines)
                try:
                    yield read_receive, write_send
                finally:
                    writing.cancel()
                    await written.wait()  # nothing waits on the descriptor when it closes
                    os.close(to_server)  # end of input: a live server exits on its own
                    await _wait_exit(self.server)
                    tasks.cancel_scope.cancel()
        finally:
            os.close(from_server)


async def _read(fd: int) -> bytes:
    while True:
        try:
            return os.read(fd, 1 << 16)
        except BlockingIOError:
            await anyio.wait_readable(fd)


async def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            await anyio.wait_writable(fd)


class McpTools(AbstractContextManager["McpTools"]):
    """A running server's tools as the engine's ``ToolSpec``s (risk class and acted-for argument from ``_meta``)."""

    def __init__(self, server: ForkedServer) -> None:
        self._server = server
        self._portal_cm = start_blocking_portal()  # the event loop's thread: after the fork, never before it
        self._portal: BlockingPortal = self._portal_cm.__enter__()
        transport: Transport = ForkedStdio(server).streams()
        self._client_cm = self._portal.wrap_async_context_manager(Client(transport, mode="legacy"))
        self._client: Client = self._client_cm.__enter__()
        self._listed = self._call(lambda: self._client.list_tools()).tools

    def tool_specs(self) -> list[ToolSpec]:
        return [
            ToolSpec(t.name, t.description or "", t.input_schema, RiskClass((t.meta or {})[RISK_META]), self._executor(t.name), (t.meta or {}).get(ACTS_FOR_META))
            for t in self._listed
        ]

    def call_raw(self, name: str, arguments: Any, meta: dict[str, Any]) -> dict[str, Any]:
        """One ``tools/call`` as a raw client sends it (any arguments, any ``_meta``): the structured result."""
        result = self._call(lambda: self._client.call_tool(name, arguments, meta=_meta(meta) if meta else None))
        return dict(result.structured_content or {"status": "error", "reason": "no structured content"})

    def _executor(self, name: str) -> Callable[[Any, ToolContext], Any]:
        def execute(args: Any, ctx: ToolContext) -> Any:
            result = self._call(lambda: self._client.call_tool(name, args, meta=_meta({KEY_META: ctx.call_id})))
            body = result.structured_content or {}
            match body.get("status"):
                case "ok" | "replayed":
                    return body["result"]
                case "uncertain":  # entered, outcome unknown: the engine stops for reconciliation
                    raise TimeoutError(f"the MCP server reports {name} uncertain: {body.get('reason')}")
                case _:  # a failure before any effect (or a refusal the engine's own checks did not foresee)
                    raise RuntimeError(f"the MCP server answered {body.get('status')}: {body.get('result')}")

        return execute

    def _call(self, request: Callable[[], Any]) -> Any:
        try:
            return self._portal.call(request)
        except Exception as exc:
            code = self._exit_code()
            if code is None:
                raise
            if code == FAULT_EXIT_CODE:  # a fault killed the tool, and with it the server: the system under test crashed
                os._exit(FAULT_EXIT_CODE)
            if code == MCP_FAULT_EXIT_CODE:  # an MCP fault ended the server after the effect: the answer is lost
                raise AnswerLost(f"the MCP server ended ({code}) before it answered: the call's outcome is unknown") from exc
            raise ServerDied(f"the MCP server exited with {code} during a call: {exc}") from exc

    def _exit_code(self) -> int | None:
        return self._portal.call(_wait_exit, self._server)  # a server that died has exited, or soon will

    def __exit__(self, *exc_info: object) -> None:
        try:
            self._client_cm.__exit__(None, None, None)
        finally:
            self._portal_cm.__exit__(None, None, None)
        code = self._server.poll()
        if code is None:
            raise ServerDied(f"the MCP server had not exited {EXIT_WAIT_S:.0f} s after the end of its input: killed ({self._server.kill()})")
        if code not in (0, MCP_FAULT_EXIT_CODE):  # an MCP fault's end was met by the call it dropped
            raise ServerDied(f"the MCP server exited with {code} at the end of the step")


def _meta(values: dict[str, Any]) -> RequestParamsMeta:
    """A request's ``_meta`` with keys of this project's namespace (the SDK's type names only the protocol's own)."""
    return cast(RequestParamsMeta, values)


async def _wait_exit(server: ForkedServer) -> int | None:
    """The server's exit status, waiting at most ``EXIT_WAIT_S`` for it (None: still running)."""
    with anyio.move_on_after(EXIT_WAIT_S):
        while (code := server.poll()) is None:
            await anyio.sleep(EXIT_POLL_S)
        return code
    return None


def server_arguments(state_dir: str, session: str, user: str, tools: list[str]) -> list[str]:
    """The arguments of ``scripts/serve_mcp.py`` for one session (its command line, after the script)."""
    return ["--state-dir", state_dir, "--session", session, "--user", user, "--tools", ",".join(tools)]

