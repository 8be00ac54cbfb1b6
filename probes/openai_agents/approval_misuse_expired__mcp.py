"""The OpenAI Agents SDK's MCP client gives the model an MCP server's ``approval_required`` as the call's result: the
run ends ``completed`` and nothing waits for the human the server is waiting for.

Documented API only: ``MCPServerStreamableHttp(params={"url": ...})`` as the agent's only MCP server, every setting at
its default (``require_approval`` unset), run inside ``async with server:``
(https://openai.github.io/openai-agents-python/mcp/), and the kit's scripted model passed explicitly. The server is the
probe's own (``harness/column_side/probes/mcp.py``, the official SDK's): it holds ``transfer_funds`` for a human and
answers ``approval_required`` as the project's server does, not as an error. With no approval of the SDK's asked for,
the run holds no call: the scenario's second step (an expired approval token) finds nothing waiting.
"""

from _kit import ScriptedModel, complete, outputs, status
from agents import Agent, Runner
from agents.mcp import MCPServerStreamableHttp

from harness.column_side.probes.kit import report
from harness.column_side.probes.mcp import ProbeMcpServer, approval_required

SCENARIO = "approval_misuse_expired"
MODE = "mcp"
SHOWS = ("status",)

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}}]},
          {"text": "Sent."}]


async def main(url: str) -> object:
    async with MCPServerStreamableHttp(params={"url": url}) as mcp:
        agent = Agent(name="support", instructions="You are a support agent for a small bank.", model=ScriptedModel(SCRIPT), mcp_servers=[mcp])
        return await Runner.run(agent, "Send 25.00 from ACC-1 to ACC-2.")


server = ProbeMcpServer(["transfer_funds"], approval_required)
result = complete(main(server.url))
server.close()
print(f"calls the server received: {len(server.calls)}; what the model was given as c1's result: {outputs(result.new_items, 'c1')}")
report(SCENARIO, {"status": status(result)})
