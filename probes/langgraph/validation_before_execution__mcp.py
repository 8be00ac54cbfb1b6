"""LangGraph with ``langchain-mcp-adapters`` sends the model's arguments as they are, unchecked against the tool's
``inputSchema``: a priority given as a string and an argument the schema does not have both reach the server.

Documented API only: ``MultiServerMCPClient({"bench": {"transport": "streamable_http", "url": ...}})`` and ``await
client.get_tools()`` handed to ``ToolNode``, every setting at its default
(https://docs.langchain.com/oss/python/langchain/mcp), the kit's graph on the kit's scripted model, run with ``ainvoke``
(the tools are coroutines). The server is the probe's own (``harness/column_side/probes/mcp.py``, the official SDK's),
listing ``put_note`` with the fixture tool's schema (``priority`` an integer, no other argument) and recording every
``tools/call`` as it arrived.
"""

import asyncio

from _kit import Scripted, agent_graph, call, thread, user
from langchain_mcp_adapters.client import MultiServerMCPClient

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
    tools = await MultiServerMCPClient({"bench": {"transport": "streamable_http", "url": url}}).get_tools()
    await agent_graph(Scripted(script=SCRIPT), tools).compile().ainvoke(user("Save a follow-up note: call back, priority 2."), thread("probe"))


server = ProbeMcpServer(["put_note"], stored)
asyncio.run(main(server.url))
server.close()
print(f"tools/call requests the server received: {server.requests}")
report(SCENARIO, {"mcp.sent_invalid": sent_unchanged(server.requests, INVALID)})
