"""LangChain's MCP adapter gives the model an MCP server's ``approval_required`` as the call's result: the agent's own
approval is answered, the call goes to the server, the server holds it for its human, and the run ends ``completed``
with nothing waiting for that human.

Documented API only: ``async with MCPAdapter(Client(url)) as adapter: tools = await adapter.list_tools()``, every setting
at its default (https://docs.langchain.com/oss/python/langchain/mcp), ``create_agent`` with the docs' approval
(``HumanInTheLoopMiddleware`` on ``transfer_funds``) and a checkpointer, run with ``ainvoke`` (the tools are coroutines),
on the kit's scripted model. The server is the probe's own (``harness/column_side/probes/mcp.py``, the official SDK's):
it holds ``transfer_funds`` and answers ``approval_required`` as the project's server does, not as an error. The
scenario's first step pauses at the agent's own question; its second (an approval token, expired, which the agent cannot
check) answers it, and the run ends there.
"""

import asyncio

from _kit import APPROVE, Scripted, agent, call, decide, results, status, thread, user
from fastmcp.client import Client
from langchain.mcp import MCPAdapter
from langgraph.checkpoint.memory import InMemorySaver

from harness.column_side.probes.kit import report
from harness.column_side.probes.mcp import ProbeMcpServer, approval_required

SCENARIO = "approval_misuse_expired"
MODE = "mcp"
SHOWS = ("status", "step_statuses")


async def main(url: str) -> tuple[list[str], list[str]]:
    async with MCPAdapter(Client(url)) as adapter:
        tools = await adapter.list_tools()
    model = Scripted(script=[[call("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent."])
    app, config = agent(model, tools, reviewed=["transfer_funds"], checkpointer=InMemorySaver()), thread("sess-approval_misuse_expired")
    statuses = []
    for payload in (user("Send 25.00 from ACC-1 to ACC-2."), decide(APPROVE)):
        await app.ainvoke(payload, config)
        statuses.append(status(app, config))
    await adapter.client.close()
    return statuses, results(app.get_state(config).values["messages"], "c1")


server = ProbeMcpServer(["transfer_funds"], approval_required)
statuses, given = asyncio.run(main(server.url))
server.close()
print(f"calls the server received: {len(server.calls)}; what the model was given as c1's result: {given}")
report(SCENARIO, {"status": statuses[-1], "step_statuses": statuses})
