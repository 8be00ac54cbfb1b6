"""ADK's ``McpToolset`` gives the model an MCP server's ``approval_required`` as the call's result: the run ends
``completed`` and nothing waits for the human the server is waiting for.

Documented API only: ``McpToolset(connection_params=StreamableHTTPConnectionParams(url=...))`` in the agent's ``tools``,
every setting at its default (``require_confirmation=False``: no confirmation of ADK's), closed with ``await
toolset.close()`` (https://google.github.io/adk-docs/tools-custom/mcp-tools/), on the kit's scripted model passed
explicitly and its resumable app. The server is the probe's own (``harness/column_side/probes/mcp.py``, the official
SDK's): it holds ``transfer_funds`` for a human and answers ``approval_required`` as the project's server does, not as
an error. No confirmation request is left waiting: the scenario's second step (an expired approval token) finds
nothing waiting.
"""

import asyncio

from _kit import APP, DB, SESSION, USER, ScriptedLlm, _events, _waiting, call, support_app, text
from google.adk.runners import Runner
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.adk.tools.mcp_tool import McpToolset
from google.adk.tools.mcp_tool.mcp_session_manager import StreamableHTTPConnectionParams
from google.genai import types

from harness.column_side.probes.kit import report
from harness.column_side.probes.mcp import ProbeMcpServer, approval_required

SCENARIO = "approval_misuse_expired"
MODE = "mcp"
SHOWS = ("status",)

SCRIPT = [[call("c1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500)], [text("Sent.")]]


async def main(url: str) -> list:
    toolset = McpToolset(connection_params=StreamableHTTPConnectionParams(url=url))
    app = support_app(ScriptedLlm(model="scripted", script=SCRIPT), [toolset])
    service = SqliteSessionService(str(DB))
    try:
        await service.create_session(app_name=APP, user_id=USER, session_id=SESSION, state={"user": USER})
        message = types.Content(role="user", parts=[text("Send 25.00 from ACC-1 to ACC-2.")])
        async for _event in Runner(app=app, session_service=service).run_async(user_id=USER, session_id=SESSION, new_message=message):
            pass
        return await _events(service, USER)
    finally:
        await toolset.close()
        await service.close()


server = ProbeMcpServer(["transfer_funds"], approval_required)
found = asyncio.run(main(server.url))
server.close()
given = [r.response for e in found for r in e.get_function_responses() if r.id == "c1"]
print(f"calls the server received: {len(server.calls)}; what the model was given as c1's result: {given}")
report(SCENARIO, {"status": "awaiting_approval" if _waiting(found) else "completed"})
