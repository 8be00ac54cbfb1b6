"""The ``mcp`` mode's tools: LangChain's documented MCP client, ``langchain.mcp.MCPAdapter`` (the ``langchain[mcp]`` extra).

As https://docs.langchain.com/oss/python/langchain/mcp teaches it (the feature page; the migration page,
https://docs.langchain.com/oss/python/migrate/langchain-mcp-adapters, says it replaces the standalone
``langchain-mcp-adapters`` package, which the ``langgraph`` column measures): ``async with MCPAdapter(target) as
adapter: tools = await adapter.list_tools()``, and the tools passed to ``create_agent`` as its only tools. The
target is, over Streamable HTTP, a ``fastmcp.Client`` on the URL with the bearer token as its ``auth`` (the docs'
bearer-token pattern, https://docs.langchain.com/oss/python/langchain/mcp/auth: "Pass the token as the client's
``auth``"), and over stdio an ``MCPConfig`` naming one server by ``command``, ``args`` and ``env`` (the harness's
relay; https://docs.langchain.com/oss/python/langchain/mcp: "An ``MCPConfig`` dict"; one server, so its tools are
not prefixed). Every setting keeps its default: the client's own timeouts and protocol negotiation, no cache,
elicitation armed as an interrupt (the adapter's default; the runner's server never elicits), the default lifecycle
(discovery inside the ``async with``, then each tool call opens the reentrant client, calls, and releases it:
https://docs.langchain.com/oss/python/langchain/mcp/connections#connection-lifecycle), an ``isError`` result as an
error ``ToolMessage`` the run goes on with, a transport failure raised
(https://docs.langchain.com/oss/python/langchain/mcp/tools#errors). Over stdio FastMCP keeps the relay process alive
between connections (``keep_alive``, its default); the session's close closes the client, which ends it
(``MCPAdapter.client``; https://gofastmcp.com/clients/transports).

Importing ``langchain.mcp`` raises ``LangChainBetaWarning`` once per process (the namespace is in beta): a warning,
left as it is.

The client's tools are coroutines only (``StructuredTool(coroutine=...)``): the agent is driven with ``astream`` (the
docs' examples ``await agent.ainvoke``), so its checkpointer is asked through the async half of LangGraph's saver
interface, which ``SqliteSaver`` leaves unimplemented (its own error message: "use put() instead, or consider using
AsyncSqliteSaver"). ``SqliteSaverAsync`` answers that half with the same ``SqliteSaver``'s own methods, on the same
file: ``defaults``' persistence code, unchanged, reached from the async loop (LangGraph's ``InMemorySaver`` answers
its async half the same way).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from fastmcp.client import Client
from langchain.mcp import MCPAdapter
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple
from langgraph.checkpoint.sqlite import SqliteSaver

from adapters.mcp_endpoint import McpEndpoint

SERVER = "bench"
"""The stdio server's name in the ``MCPConfig`` (one server: FastMCP connects to it directly, tool names unprefixed)."""


def mcp_adapter(endpoint: McpEndpoint) -> MCPAdapter:
    """The documented adapter for the step's endpoint: the URL with the bearer token as the client's ``auth``, or the
    relay over stdio as a one-server ``MCPConfig``."""
    if endpoint.transport == "stdio":
        server = {"command": endpoint.command, "args": endpoint.args, "env": endpoint.env}
        return MCPAdapter({"mcpServers": {SERVER: server}})
    return MCPAdapter(Client(endpoint.url, auth=endpoint.token))


async def mcp_tools(endpoint: McpEndpoint, emit: Callable[[dict[str, Any]], None]) -> tuple[MCPAdapter, list[BaseTool]]:
    """``async with MCPAdapter(target) as adapter: tools = await adapter.list_tools()``, and on the trace each tool's
    parameters as the model is given them: the ``convert_to_openai_tool`` form every LangChain chat model's
    ``bind_tools`` sends (here the scripted model's). The adapter is returned for the session's close."""
    async with mcp_adapter(endpoint) as adapter:
        tools = await adapter.list_tools()
    emit({"kind": "mcp_tools", "transport": endpoint.transport, "tools": {t.name: convert_to_openai_tool(t)["function"]["parameters"] for t in tools}})
    return adapter, tools


async def close_adapter(adapter: MCPAdapter) -> None:
    """The step's end: close the adapter's FastMCP client (over stdio this ends the kept-alive relay process; over
    HTTP the client holds nothing between calls)."""
    client = adapter.client
    assert isinstance(client, Client)  # one target, never a ``ClientGroup``
    await client.close()


class SqliteSaverAsync(SqliteSaver):
    """``SqliteSaver`` whose async methods are its own sync ones (see the module docstring)."""

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self.get_tuple(config)

    async def alist(
        self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None, before: RunnableConfig | None = None, limit: int | None = None
    ) -> AsyncIterator[CheckpointTuple]:
        for item in self.list(config, filter=filter, before=before, limit=limit):
            yield item

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions) -> RunnableConfig:
        return self.put(config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        self.put_writes(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        self.delete_thread(thread_id)
