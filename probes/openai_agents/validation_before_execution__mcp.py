"""The OpenAI Agents SDK's MCP client sends the model's arguments as they are, unchecked against the tool's
``inputSchema``: a priority given as a string and an argument the schema does not have both reach the server.

Documented API only: ``MCPServerStreamableHttp(params={"url": ...})`` as the agent's only MCP server, every setting at
its default, run inside ``async with server:`` (https://openai.github.io/openai-agents-python/mcp/), and the kit's
scripted model passed explicitly. The server is the probe's own (``harness/column_side/probes/mcp.py``, the official
SDK's), listing ``put_note`` with the fixture tool's schema (``priority`` an integer, no other argument) and recording
every ``tools/call`` as it arrived.
"""

from _kit import ScriptedModel, complete
from agents import Agent, Runner
from agents.mcp import MCPServerStreamableHttp

from harness.column_side.probes.kit import report
from harness.column_side.probes.mcp import ProbeMcpServer, sent_unchanged, stored

SCENARIO = "validation_before_execution"
MODE = "mcp"
SHOWS = ("mcp.sent_invalid",)

INVALID = {"c1": ("put_note", {"key": "followup", "text": "Call back.", "priority": "2"}),
           "c2": ("put_note", {"key": "followup", "text": "Call back.", "priority": 2, "color": "red"})}
SCRIPT = [*({"tool_calls": [{"id": cid, "name": tool, "arguments": arguments}]} for cid, (tool, arguments) in INVALID.items()),
          {"tool_calls": [{"id": "c3", "name": "put_note", "arguments": {"key": "followup", "text": "Call back.", "priority": 2}}]},
          {"text": "The note is saved."}]


async def main(url: str) -> object:
    async with MCPServerStreamableHttp(params={"url": url}) as mcp:
        agent = Agent(name="support", instructions="You are a support agent for a small bank.", model=ScriptedModel(SCRIPT), mcp_servers=[mcp])
        return await Runner.run(agent, "Save a follow-up note: call back, priority 2.")


server = ProbeMcpServer(["put_note"], stored)
complete(main(server.url))
server.close()
print(f"tools/call requests the server received: {server.requests}")
report(SCENARIO, {"mcp.sent_invalid": sent_unchanged(server.requests, INVALID)})
