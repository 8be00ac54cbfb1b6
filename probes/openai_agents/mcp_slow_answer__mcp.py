"""The OpenAI Agents SDK's MCP client stops waiting for an answer after 5 s: a call that ran on the server and answers
at 6 s is withdrawn, and the model is told the tool failed, though the note was written.

Documented API only: ``MCPServerStreamableHttp(params={"url": ...})`` as the agent's only MCP server, every setting at
its default (``client_session_timeout_seconds`` among them), run inside ``async with server:``
(https://openai.github.io/openai-agents-python/mcp/, https://openai.github.io/openai-agents-python/ref/mcp/server/), and
the kit's scripted model passed explicitly. The server is the probe's own (``harness/column_side/probes/mcp.py``, the
official SDK's): ``put_note`` runs (the server counts it) and its answer comes ``MCP_SLOW_DELAY_S`` (6 s) later; the
server records a call whose client stopped waiting for it.
"""

from _kit import ScriptedModel, complete, outputs
from agents import Agent, Runner
from agents.mcp import MCPServerStreamableHttp

from harness.column_side.probes.kit import report
from harness.column_side.probes.mcp import ProbeMcpServer, stored
from harness.scenarios import MCP_SLOW_DELAY_S

SCENARIO = "mcp_slow_answer"
MODE = "mcp"
SHOWS = ("mcp.withdrawn", "side_effects.c1.effects")

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "k1", "text": "call me back tomorrow"}}]},
          {"text": "Noted: the customer wants a call back."}]


async def main(url: str) -> object:
    async with MCPServerStreamableHttp(params={"url": url}) as mcp:
        agent = Agent(name="support", instructions="You are a support agent for a small bank.", model=ScriptedModel(SCRIPT), mcp_servers=[mcp])
        return await Runner.run(agent, "Please note that the customer wants a call back.")


server = ProbeMcpServer(["put_note"], stored, delay=MCP_SLOW_DELAY_S)
result = complete(main(server.url))
server.close()
print(f"calls the server ran: {len(server.calls)}; withdrawn by the client: {server.withdrawn}; what the model was given as c1's result: "
      f"{outputs(result.new_items, 'c1')}")
report(SCENARIO, {"mcp.withdrawn": ["c1"] if server.withdrawn else [], "side_effects.c1.effects": len(server.calls)})
