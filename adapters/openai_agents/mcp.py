"""The ``mcp`` mode's tools: the OpenAI Agents SDK's own MCP client, every setting at its default.

``MCPServerStreamableHttp(params={"url": ..., "headers": {"Authorization": "Bearer ..."}})`` over Streamable HTTP, or
``MCPServerStdio(params={"command": ..., "args": ..., "env": ...})`` over stdio (the harness's relay), passed as
``Agent(mcp_servers=[server], tools=[])`` and run inside ``async with server:``
(https://openai.github.io/openai-agents-python/mcp/, "2. Streamable HTTP MCP servers", "4. stdio MCP servers"; API:
https://openai.github.io/openai-agents-python/ref/mcp/server/). The agent has no other tool. The defaults are kept:
``client_session_timeout_seconds=5`` (the read timeout of every MCP request), ``max_retry_attempts=0`` (no re-send),
``cache_tools_list=False`` (``tools/list`` on every model turn), ``require_approval`` unset (no approval of the SDK's),
no ``tool_meta_resolver`` (no ``_meta`` of the caller's), ``use_structured_content=False``.

One connection per driver step: ``async with server:`` is entered when the session opens and left when it closes
(``StepConnection``), in one task of the step's event loop that holds it, since the MCP client's transport must be left
in the task that entered it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from agents import FunctionTool
from agents.mcp import MCPServerStdio, MCPServerStreamableHttp

from adapters.mcp_endpoint import McpEndpoint

Server = MCPServerStdio | MCPServerStreamableHttp


def mcp_server(endpoint: McpEndpoint) -> Server:
    """The documented client for the step's endpoint: the URL with the bearer header, or the relay over stdio."""
    if endpoint.transport == "stdio":
        return MCPServerStdio(params={"command": endpoint.command, "args": endpoint.args, "env": endpoint.env})
    return MCPServerStreamableHttp(params={"url": endpoint.url, "headers": endpoint.headers})


class StepConnection:
    """``async with server:`` for one driver step: entered by ``open`` and left by ``close``, both inside one task
    that holds the connection while the step's session methods run on the same event loop."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def open(self) -> None:
        """Connect (the ``async with``'s entry); a failure to connect is raised here."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._hold(ready))
        await ready

    async def _hold(self, ready: asyncio.Future[None]) -> None:
        try:
            async with self.server:
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
                return
            raise

    async def close(self) -> None:
        """Leave the ``async with`` (the SDK's ``cleanup``: the connection closed, the stdio relay ended)."""
        self._stop.set()
        if self._task is not None:
            await self._task


def offered_once(endpoint: McpEndpoint, emit: Callable[[dict[str, Any]], None]) -> Callable[[Sequence[Any]], None]:
    """Trace, at the step's first model turn, each tool as the SDK gives it to the model: the ``FunctionTool`` the SDK
    built from the server's ``tools/list`` and its ``params_json_schema`` (the parameters a model request carries)."""
    done: list[bool] = []

    def offered(tools: Sequence[Any]) -> None:
        if not done:
            done.append(True)
            schemas = {t.name: t.params_json_schema for t in tools if isinstance(t, FunctionTool)}
            emit({"kind": "mcp_tools", "transport": endpoint.transport, "tools": schemas})

    return offered
