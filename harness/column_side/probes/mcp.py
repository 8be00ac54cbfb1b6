"""What the mcp probes share: a small MCP server of the probe's own, the official SDK's, on 127.0.0.1.

An mcp probe (``probes/<framework>/<scenario>__mcp.py``, with ``MODE = "mcp"``) drives its framework's documented MCP
client against this server alone: the SDK's high-level server (``MCPServer`` in mcp 2, ``FastMCP`` in mcp 1: the same
class renamed, https://py.sdk.modelcontextprotocol.io/v2/migration/#fastmcp-renamed-to-mcpserver) serving Streamable
HTTP at ``/mcp`` from uvicorn in a thread of the probe, on a port the probe's process binds. Nothing of the runner's
server: no scenario file, no token, no boundary, no ledger. Its tools are the fixture tools the probe names, each a
plain function with the fixture tool's parameters, and each call is answered by the probe's ``answer(tool, arguments)``
(a ``CallToolResult``: the probe says what the server answers). ``calls`` records every ``tools/call`` received, in
order, with its arguments.

``APPROVAL_REQUIRED`` is what the project's server answers a high-risk call it holds for a human
(``harness.column_side.mcp.server.tool_result``): the status in ``structuredContent`` and first in the text, not an
error. A probe that answers it shows what a framework's MCP client does with a server-side approval it cannot give.
"""

from __future__ import annotations

import inspect
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

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


class ProbeMcpServer:
    """The server, serving from construction until ``close``; ``url`` is its Streamable HTTP endpoint."""

    def __init__(self, tools: list[str], answer: Answer) -> None:
        self.calls: list[dict[str, Any]] = []
        server = _Server("probe")
        for name in tools:
            server.add_tool(self._tool(name, answer), name=name, description=FIXTURE_TOOLS[name].description)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
        self._uvicorn = uvicorn.Server(uvicorn.Config(server.streamable_http_app(), log_level="critical", lifespan="on"))
        self._thread = threading.Thread(target=self._uvicorn.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._uvicorn.started and time.monotonic() < deadline:
            time.sleep(0.01)

    def _tool(self, name: str, answer: Answer) -> Callable[..., Any]:
        """A function with the fixture tool's parameters (so the SDK lists its schema), answered by ``answer``."""
        schema = FIXTURE_TOOLS[name].schema
        required = set(schema.get("required", ()))
        parameters = [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=_TYPES.get(s.get("type"), Any),
                                        **({} if p in required else {"default": None}))
                      for p, s in schema.get("properties", {}).items()]  # fmt: skip

        def call(**arguments: Any) -> Any:
            self.calls.append({"tool": name, "arguments": arguments})
            return answer(name, arguments)

        call.__name__ = name
        call.__signature__ = inspect.Signature(parameters, return_annotation=CallToolResult)  # type: ignore[attr-defined]
        return call

    def close(self) -> None:
        self._uvicorn.should_exit = True
        self._thread.join(10)
