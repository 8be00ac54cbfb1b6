"""AgentScope's MCP client gives the model an MCP server's ``approval_required`` as the call's result: the agent's own
confirmation is answered, the call goes to the server, the server holds it for its human, and the run ends
``completed`` with nothing waiting for that human.

Documented API only: a stateful ``MCPClient(name, is_stateful=True, mcp_config=HttpMCPConfig(url=...))``, ``await
client.connect()``, ``Toolkit(mcps=[client])`` as the agent's only tools and ``await client.close()``, every setting at
its default (https://docs.agentscope.io/v2/building-blocks/tool/mcp): the permission system asks the user about a tool
the server does not mark read-only, answered with ``UserConfirmResultEvent`` as the kit's driver answers it, on the
kit's scripted model (which calls the tool by AgentScope's name for it, ``mcp__bench__transfer_funds``). The server is
the probe's own (``harness/column_side/probes/mcp.py``, the official SDK's): it holds ``transfer_funds`` and answers
``approval_required`` as the project's server does, not as an error. The scenario's first step pauses at AgentScope's own
question; its second (an approval token, expired, which the agent cannot check) answers it, and the run ends there.
"""

import asyncio

from _kit import PROMPT, Scripted, status, tool_results
from agentscope.agent import Agent
from agentscope.event import ConfirmResult, UserConfirmResultEvent
from agentscope.mcp import HttpMCPConfig, MCPClient
from agentscope.message import UserMsg
from agentscope.tool import Toolkit

from harness.column_side.probes.kit import report
from harness.column_side.probes.mcp import ProbeMcpServer, approval_required

SCENARIO = "approval_misuse_expired"
MODE = "mcp"
SHOWS = ("status", "step_statuses")

SCRIPT = [[("c1", "mcp__bench__transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent."]


async def main(url: str) -> tuple[list[str], list[str]]:
    client = MCPClient(name="bench", is_stateful=True, mcp_config=HttpMCPConfig(url=url))
    await client.connect()
    agent = Agent(name="assistant", system_prompt=PROMPT, model=Scripted(SCRIPT), toolkit=Toolkit(mcps=[client]))
    events, statuses = [], []
    async for event in agent.reply_stream(UserMsg(name="user", content="Send 25.00 from ACC-1 to ACC-2.")):
        events.append(event)
    statuses.append(status(agent.state))
    asked = agent.state.get_awaiting_tool_calls("assistant")
    confirm = UserConfirmResultEvent(reply_id=agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=True, tool_call=b) for b in asked])
    async for event in agent.reply_stream(confirm):
        events.append(event)
    statuses.append(status(agent.state))
    await client.close()
    return statuses, tool_results(events)


server = ProbeMcpServer(["transfer_funds"], approval_required)
statuses, given = asyncio.run(main(server.url))
server.close()
print(f"calls the server received: {len(server.calls)}; what the model was given as c1's result: {given}")
report(SCENARIO, {"status": statuses[-1], "step_statuses": statuses})
