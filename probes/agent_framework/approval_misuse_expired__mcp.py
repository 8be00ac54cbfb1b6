"""Agent Framework's MCP tool gives the model an MCP server's ``approval_required`` as the call's result: the run ends
``completed`` and nothing waits for the human the server is waiting for.

Documented API only: ``MCPStreamableHTTPTool(name, url=...)`` as the agent's only tool, every setting at its default
(``approval_mode=None``: no approval of the framework's), the agent used as ``async with Agent(...)``
(https://learn.microsoft.com/en-us/agent-framework/user-guide/model-context-protocol/using-mcp-tools), on the kit's
scripted client passed explicitly. The server is the probe's own (``harness/column_side/probes/mcp.py``, the official
SDK's): it holds ``transfer_funds`` for a human and answers ``approval_required`` as the project's server does, not as
an error. The run returns no approval request: the scenario's second step (an expired approval token) finds nothing
waiting.
"""

import asyncio

from _kit import BANK, ScriptedClient, call, text
from agent_framework import Agent, MCPStreamableHTTPTool

from harness.column_side.probes.kit import report
from harness.column_side.probes.mcp import ProbeMcpServer, approval_required

SCENARIO = "approval_misuse_expired"
MODE = "mcp"
SHOWS = ("status",)

SCRIPT = [[call("c1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500)], [text("Sent.")]]


async def main(url: str) -> object:
    async with Agent(client=ScriptedClient(SCRIPT), instructions=BANK, tools=[MCPStreamableHTTPTool(name="bench", url=url)]) as agent:
        return await agent.run("Send 25.00 from ACC-1 to ACC-2.")


server = ProbeMcpServer(["transfer_funds"], approval_required)
response = asyncio.run(main(server.url))
server.close()
given = [c.result for m in response.messages for c in m.contents if c.type == "function_result"]
print(f"calls the server received: {len(server.calls)}; what the model was given as c1's result: {given}")
report(SCENARIO, {"status": "awaiting_approval" if response.user_input_requests else "completed"})
