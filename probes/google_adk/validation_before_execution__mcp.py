"""ADK's ``McpToolset`` sends the model's arguments as they are, unchecked against the tool's ``inputSchema``: a
priority given as a string and an argument the schema does not have both reach the server.

Documented API only: ``McpToolset(connection_params=StreamableHTTPConnectionParams(url=...))`` in the agent's ``tools``,
every setting at its default, closed with ``await toolset.close()`` (https://google.github.io/adk-docs/tools-custom/mcp-tools/),
on the kit's scripted model passed explicitly and its app. The server is the probe's own
(``harness/column_side/probes/mcp.py``, the official SDK's), listing ``put_note`` with the fixture tool's schema
(``priority`` an integer, no other argument) and recording every ``tools/call`` as it arrived.
"""

import asyncio

from _kit import APP, DB, SESSION, USER, ScriptedLlm, call, support_app, text
from google.adk.runners import Runner
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.adk.tools.mcp_tool import McpToolset
from google.adk.tools.mcp_tool.mcp_session_manager import StreamableHTTPConnectionParams
from google.genai import types

from harness.column_side.probes.kit import report
from harness.column_side.probes.mcp import ProbeMcpServer, sent_unchanged, stored

SCENARIO = "validation_before_execution"
MODE = "mcp"
SHOWS = ("mcp.sent_invalid",)

INVALID = {"c1": ("put_note", {"key": "followup", "text": "Call back.", "priority": "2"}),
           "c2": ("put_note", {"key": "followup", "text": "Call back.", "priority": 2, "color": "red"})}
SCRIPT = [*([call(cid, tool, **arguments)] for cid, (tool, arguments) in INVALID.items()),
          [call("c3", "put_note", key="followup", text="Call back.", priority=2)], [text("The note is saved.")]]


async def main(url: str) -> None:
    toolset = McpToolset(connection_params=StreamableHTTPConnectionParams(url=url))
    service = SqliteSessionService(str(DB))
    try:
        await service.create_session(app_name=APP, user_id=USER, session_id=SESSION, state={"user": USER})
        message = types.Content(role="user", parts=[text("Save a follow-up note: call back, priority 2.")])
        app = support_app(ScriptedLlm(model="scripted", script=SCRIPT), [toolset])
        async for _event in Runner(app=app, session_service=service).run_async(user_id=USER, session_id=SESSION, new_message=message):
            pass
    finally:
        await toolset.close()
        await service.close()


server = ProbeMcpServer(["put_note"], stored)
asyncio.run(main(server.url))
server.close()
print(f"tools/call requests the server received: {server.requests}")
report(SCENARIO, {"mcp.sent_invalid": sent_unchanged(server.requests, INVALID)})
