"""What the mcp probes share: a small MCP server of the probe's own, the official SDK's, on 127.0.0.1.

An mcp probe (``probes/<framework>/<scenario>__mcp.py``, with ``MODE = "mcp"``) drives its framework's documented MCP
client against this server alone: the SDK's high-level server (``MCPServer`` in mcp 2, ``FastMCP`` in mcp 1: the same
class renamed, https://py.sdk.modelcontextprotocol.io/v2/migration/#fastmcp-renamed-to-mcpserver) serving Streamable
HTTP at ``/mcp`` from uvicorn in a thread of the probe, on a port the probe's process binds. Nothing of the runner's
server: no scenario file, no token, no boundary, no ledger. Its tools are the fixture tools the probe names, each a
plain function with the fixture tool's parameters, and each call is answered by the probe's ``answer(tool, arguments)``
(a ``CallToolResult``: the probe says what the server answers). Each tool is listed with the fixture tool's schema,
as the project's server lists it. ``calls`` records every call the SDK's server let through to a tool, in order, with
its arguments, and ``requests`` every ``tools/call`` as the client sent it, before the SDK checked its arguments. With
``delay`` (seconds), each answer is given that long after the call ran, as the project's server gives an answer
``mcp.slow_answer`` delays; a call whose client stops waiting meanwhile (the SDK's server cancels its handler) is
recorded in ``withdrawn``.

``APPROVAL_REQUIRED`` is what the project's server answers a high-risk call it holds for a human
(``harness.column_side.mcp.server.tool_result``): the status in ``structuredContent`` and first in the text, not an
error. A probe that answers it shows what a framework's MCP client does with a server-side approval it cannot give.
"""

from __future__ import annotations

import inspect
import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import anyio
import uvicorn

try:  # mcp 2
    from mcp.server.mcpserver import MCPServer as _Server
    from mcp_types import CallToolResult, TextContent
except ImportError:  # mcp 1 (the LangGraph column's langchain-mcp-adapters needs it)
    from mcp.server.fastmcp import FastMCP as _Server  # type: ignore[no-redef,attr-defined]
    from mcp.types import CallToolResult, TextContent

from handwritten.canonical import canonical_json
from harness.fixture_tools import FIXTURE_TOOLS

Answer = Callable[[str, dict[str, Any]], Any]
"""The probe's answer to one call: ``(tool, arguments) -> CallToolResult``."""
_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict, "array": list}


def approval_required(tool: str, arguments: dict[str, Any]) -> Any:
    """The project's server's answer to a high-risk call it holds for a human (its shape, nothing of its boundary)."""
    output = {"error": f"{tool} needs a human's approval: the server holds the call"}
    structured = {"status": "approval_required", "call_id": "srv:1", "tool": tool, "reason": "approval_required", "result": output}
    return CallToolResult(content=[TextContent(type="text", text=f"approval_required: {canonical_json(output)}")], structured_content=structured,
                          is_error=False)


def stored(tool: str, arguments: dict[str, Any]) -> Any:
    """The project's server's answer to a call that ran: ``ok`` and the tool's output (here, the arguments it stored)."""
    output = {"stored": True, **arguments}
    return CallToolResult(content=[TextContent(type="text", text=f"ok: {canonical_json(output)}")], is_error=False)


def sent_unchanged(requests: list[dict[str, Any]], calls: dict[str, tuple[str, dict[str, Any]]]) -> list[str]:
    """The ids of ``calls`` (id -> tool and the model's arguments) that some request carried unchanged: what the client
    sent the model's arguments of, as the model gave them."""
    return sorted(cid for cid, (tool, arguments) in calls.items()
                  if any(r["tool"] == tool and canonical_json(r["arguments"]) == canonical_json(arguments) for r in requests))


class ProbeMcpServer:
    """The server, serving from construction until ``close``; ``url`` is its Streamable HTTP endpoint."""

    def __init__(self, tools: list[str], answer: Answer, delay: float = 0.0) -> None:
        self.calls: list[dict[str, Any]] = []
        self.withdrawn: list[str] = []  # the tools of the calls whose client stopped waiting for their late answer
        self.delay = delay
        server = _Server("probe")
        for name in tools:
            server.add_tool(self._tool(name, answer), name=name, description=FIXTURE_TOOLS[name].description)
            added = server._tool_manager.get_tool(name)
            assert added is not None
            added.parameters = json.loads(canonical_json(FIXTURE_TOOLS[name].schema))  # what tools/list sends: the schema the project's server lists
        self.requests: list[dict[str, Any]] = []  # every tools/call as it arrived: its name and arguments, before the SDK checks them
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
        self._uvicorn = uvicorn.Server(uvicorn.Config(self._recording(server.streamable_http_app()), log_level="critical", lifespan="on"))
        self._thread = threading.Thread(target=self._uvicorn.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._uvicorn.started and time.monotonic() < deadline:
            time.sleep(0.01)

    def _recording(self, app: Any) -> Any:
        """``app`` behind a recorder of each ``tools/call`` request's name and arguments, read from the request's body
        as the client sent it (the SDK's server checks the arguments against the function's own signature, not the
        schema it lists: a client's unchecked arguments are seen here whatever the SDK then does with them)."""

        async def recorded(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http" or scope["method"] != "POST":
                await app(scope, receive, send)
                return
            messages = [await receive()]
            while messages[-1].get("more_body"):
                messages.append(await receive())
            try:
                body = json.loads(b"".join(m.get("body", b"") for m in messages))
            except ValueError:
                body = None
            for message in body if isinstance(body, list) else [body]:
                if isinstance(message, dict) and message.get("method") == "tools/call":
                    params = message.get("params") or {}
                    self.requests.append({"tool": params.get("name"), "arguments": params.get("arguments")})

            async def replayed() -> Any:
                return messages.pop(0) if messages else await receive()

            await app(scope, replayed, send)

        return recorded

    def _tool(self, name: str, answer: Answer) -> Callable[..., Any]:
        """A function with the fixture tool's parameters (so the SDK lists its schema), answered by ``answer``."""
        schema = FIXTURE_TOOLS[name].schema
        required = set(schema.get("required", ()))
        parameters = [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=_TYPES.get(s.get("type"), Any),
                                        **({} if p in required else {"default": None}))
                      for p, s in schema.get("properties", {}).items()]  # fmt: skip

        async def call(**arguments: Any) -> Any:
            self.calls.append({"tool": name, "arguments": arguments})
            result = answer(name, arguments)
            try:
                await anyio.sleep(self.delay)
            except anyio.get_cancelled_exc_class():
                self.withdrawn.append(name)
                raise
            return result

        call.__name__ = name
        call.__signature__ = inspect.Signature(parameters, return_annotation=CallToolResult)  # type: ignore[attr-defined]
        return call

    def close(self) -> None:
        self._uvicorn.should_exit = True
        self._thread.join(10)
