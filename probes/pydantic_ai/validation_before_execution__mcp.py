"""Pydantic AI's MCP client sends the model's arguments as they are, unchecked against the tool's ``inputSchema``: a
priority given as a string and an argument the schema does not have both reach the server.

Documented API only: ``MCPToolset(url)`` as the agent's only toolset, every setting at its default
(https://pydantic.dev/docs/ai/mcp/client/), and a scripted ``FunctionModel`` passed explicitly
(https://pydantic.dev/docs/ai/guides/testing/). The server is the probe's own (``harness/column_side/probes/mcp.py``,
the official SDK's), listing ``put_note`` with the fixture tool's schema (``priority`` an integer, no other argument)
and recording every ``tools/call`` as it arrived.
"""

from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probes.kit import report
from harness.column_side.probes.mcp import ProbeMcpServer, sent_unchanged, stored

SCENARIO = "validation_before_execution"
MODE = "mcp"
SHOWS = ("mcp.sent_invalid",)

INVALID = {"c1": ("put_note", {"key": "followup", "text": "Call back.", "priority": "2"}),
           "c2": ("put_note", {"key": "followup", "text": "Call back.", "priority": 2, "color": "red"})}
TURNS = [*(ToolCallPart(tool, arguments, tool_call_id=cid) for cid, (tool, arguments) in INVALID.items()),
         ToolCallPart("put_note", {"key": "followup", "text": "Call back.", "priority": 2}, tool_call_id="c3")]


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    turn = sum(isinstance(m, ModelResponse) for m in messages)
    return ModelResponse(parts=[TURNS[turn]] if turn < len(TURNS) else [TextPart("The note is saved.")])


server = ProbeMcpServer(["put_note"], stored)
Agent(FunctionModel(scripted), toolsets=[MCPToolset(server.url)]).run_sync("Save a follow-up note: call back, priority 2.")
server.close()
print(f"tools/call requests the server received: {server.requests}")
report(SCENARIO, {"mcp.sent_invalid": sent_unchanged(server.requests, INVALID)})
