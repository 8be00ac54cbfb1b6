"""LangGraph with ``langchain-mcp-adapters`` gives the model an MCP server's ``approval_required`` as the call's result:
the graph's own approval is answered, the call goes to the server, the server holds it for its human, and the run
ends ``completed`` with nothing waiting for that human.

Documented API only: ``MultiServerMCPClient({"bench": {"transport": "streamable_http", "url": ...}})`` and ``await
client.get_tools()`` handed to ``ToolNode``, every setting at its default
(https://docs.langchain.com/oss/python/langchain/mcp), the kit's graph with the docs' approve-or-reject node before the
tools (https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject) on a checkpointer, run with
``ainvoke`` (the tools are coroutines), and the kit's scripted model. The server is the probe's own
(``harness/column_side/probes/mcp.py``, the official SDK's): it holds ``transfer_funds`` and answers ``approval_required``
as the project's server does, not as an error. The scenario's first step pauses at the graph's own question; its second
(an approval token, expired, which the graph cannot check) answers it, and the run ends there.
"""

import asyncio

from _kit import APPROVE, Scripted, agent_graph, call, results, status, thread, user
from langchain_mcp_adapters.client import MultiServerMCPClient
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from harness.column_side.probes.kit import report
from harness.column_side.probes.mcp import ProbeMcpServer, approval_required

SCENARIO = "approval_misuse_expired"
MODE = "mcp"
SHOWS = ("status", "step_statuses")


async def main(url: str) -> tuple[list[str], list[str]]:
    tools = await MultiServerMCPClient({"bench": {"transport": "streamable_http", "url": url}}).get_tools()
    model = Scripted(script=[[call("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent."])
    app, config = agent_graph(model, tools, review=True).compile(checkpointer=InMemorySaver()), thread("sess-approval_misuse_expired")
    statuses = []
    for payload in (user("Send 25.00 from ACC-1 to ACC-2."), Command(resume=APPROVE)):
        await app.ainvoke(payload, config)
        statuses.append(status(app, config))
    return statuses, results(app.get_state(config).values["messages"], "c1")


server = ProbeMcpServer(["transfer_funds"], approval_required)
statuses, given = asyncio.run(main(server.url))
server.close()
print(f"calls the server received: {len(server.calls)}; what the model was given as c1's result: {given}")
report(SCENARIO, {"status": statuses[-1], "step_statuses": statuses})
