"""LangChain's MCP adapter sends the model's arguments as they are, unchecked against the tool's ``inputSchema``: a
priority given as a string and an argument the schema does not have both reach the server.

Documented API only: ``async with MCPAdapter(Client(url)) as adapter: tools = await adapter.list_tools()``, every setting
at its default (https://docs.langchain.com/oss/python/langchain/mcp), ``create_agent`` with the tools, run with
``ainvoke`` (the tools are coroutines), on the kit's scripted model. The server is the probe's own
(``harness/column_side/probes/mcp.py``, the official SDK's), listing ``put_note`` with the fixture tool's schema
(``priority`` an integer, no other argument) and recording every ``tools/call`` as it arrived.
"""

import asyncio

from _kit import Scripted, agent, call, user
from fastmcp.client import Client
from langchain.mcp import MCPAdapter

from harness.column_side.probes.kit import report
from harness.column_side.probes.mcp import ProbeMcpServer, sent_unchanged, stored

SCENARIO = "validation_before_execution"
MODE = "mcp"
SHOWS = ("mcp.sent_invalid",)

INVALID = {"c1": ("put_note", {"key": "followup", "text": "Call back.", "priority": "2"}),
           "c2": ("put_note", {"key": "followup", "text": "Call back.", "priority": 2, "color": "red"})}
SCRIPT = [*([call(cid, tool, arguments)] for cid, (tool, arguments) in INVALID.items()),
          [call("c3", "put_note", {"key": "followup", "text": "Call back.", "priority": 2})], "The note is saved."]


async def main(url: str) -> None:
    async with MCPAdapter(Client(url)) as adapter:
        tools = await adapter.list_tools()
        await agent(Scripted(script=SCRIPT), tools).ainvoke(user("Save a follow-up note: call back, priority 2."))


server = ProbeMcpServer(["put_note"], stored)
asyncio.run(main(server.url))
server.close()
print(f"tools/call requests the server received: {server.requests}")
report(SCENARIO, {"mcp.sent_invalid": sent_unchanged(server.requests, INVALID)})
