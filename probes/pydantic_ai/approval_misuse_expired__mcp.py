"""Pydantic AI's MCP client gives the model an MCP server's ``approval_required`` as the call's result: the run ends
``completed`` and nothing waits for the human the server is waiting for.

Documented API only: ``MCPToolset(url)`` as the agent's only toolset, every setting at its default
(https://pydantic.dev/docs/ai/mcp/client/), and a scripted ``FunctionModel`` passed explicitly
(https://pydantic.dev/docs/ai/guides/testing/). The server is the probe's own (``harness/column_side/probes/mcp.py``,
the official SDK's): it holds ``transfer_funds`` for a human and answers ``approval_required`` as the project's server
does, not as an error. Pydantic AI has no approval of its own for an MCP tool, so its run holds no call: the scenario's
second step (an expired approval token) finds nothing waiting, and the status is the one the run ended with.
"""

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probes.kit import report
from harness.column_side.probes.mcp import ProbeMcpServer, approval_required

SCENARIO = "approval_misuse_expired"
MODE = "mcp"
SHOWS = ("status",)

CALL = ToolCallPart("transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}, tool_call_id="c1")
seen: list[str] = []


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    turn = sum(isinstance(m, ModelResponse) for m in messages)
    seen.extend(str(p.content) for m in messages for p in getattr(m, "parts", ()) if isinstance(p, ToolReturnPart))
    return ModelResponse(parts=[CALL] if turn == 0 else [TextPart("Sent.")])


server = ProbeMcpServer(["transfer_funds"], approval_required)
agent = Agent(FunctionModel(scripted), toolsets=[MCPToolset(server.url)], output_type=[str, DeferredToolRequests])
result = agent.run_sync("Send 25.00 from ACC-1 to ACC-2.")
server.close()
print(f"calls the server received: {len(server.calls)}; what the model was given as c1's result: {seen}")
report(SCENARIO, {"status": "awaiting_approval" if isinstance(result.output, DeferredToolRequests) else "completed"})
