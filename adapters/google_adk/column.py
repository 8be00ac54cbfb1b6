"""The ``google_adk`` column: ADK ``LlmAgent`` + ``FunctionTool(require_confirmation=...)`` + a resumable ``App``
(``ResumabilityConfig(is_resumable=True)``) + ``SqliteSessionService`` (see MAPPING.md). Each driver step builds the
agent and the runner afresh in its worker; the session reads everything else from the scratch directory. Nothing
races: a turn's calls are tasks on one event loop, and the fixture tools never await. In ``mcp`` mode the agent's only
tool is ADK's ``McpToolset`` on the runner's MCP server (``mcp.py``), instead of the fixture tools.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, cast

from google.adk.agents import LlmAgent
from google.adk.agents.run_config import RunConfig
from google.adk.apps import App, ResumabilityConfig
from google.adk.events import Event
from google.adk.models.llm_request import LlmRequest
from google.adk.runners import Runner
from google.adk.sessions import Session
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.adk.tools.base_toolset import BaseToolset

from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.scripted_model import ScriptedModel
from harness.scenarios import Scenario

from ..column import FrameworkColumn, SessionContext
from ..mcp_endpoint import endpoint
from .model import ScriptedLlm
from .session import APP, DB, ADKSession
from .tools import fixture_tools
from .wire import wire_model

warnings.filterwarnings("ignore", message=r"\[EXPERIMENTAL\]")  # ResumabilityConfig's notice, once per App built


class GoogleADKColumn(FrameworkColumn):
    """ADK's own loop, confirmation and session store; contract glue from ``adapters.glue_blocks``."""

    name = "google_adk"
    modes: ClassVar[tuple[str, ...]] = ("defaults", "contract", "wire", "mcp")
    approval_fields: ClassVar[dict[str, str]] = {
        "call": "google.genai.types:FunctionResponse id (the adk_request_confirmation call's id)",
        "single_use": "google.adk.flows.llm_flows.tools._confirmation:_RequestConfirmationLlmRequestProcessor (drops a confirmation already consumed)",
    }
    mechanisms: ClassVar[dict[str, str]] = {
        "loop": "google.adk.flows.llm_flows.base_llm_flow:BaseLlmFlow.run_async",
        "tool_dispatch": "google.adk.flows.llm_flows.tools._batch_executor:_execute_prepared_function_calls",
        "message_assembly": "google.adk.flows.llm_flows.context._contents:_get_contents",
        "approval": "google.adk.tools._confirmation_utils:apply_confirmation_gate",
        "persistence": "google.adk.sessions.sqlite_session_service:SqliteSessionService.append_event",
    }

    def prepare(self, mode: str) -> None:
        """Import what a run imports on first use once in the column process: forked workers inherit it."""
        from . import glue  # noqa: F401

        if mode == "mcp":
            from . import mcp  # noqa: F401  (ADK's MCP client and the SDK under it)

    def built_constants(self, scenario: Scenario, scratch: Path) -> dict[str, dict[str, Any]]:
        """ADK's default step bound (``RunConfig``'s ``max_llm_calls``, a default factory no signature shows) and what
        its tool dispatch does, measured on a small in-memory agent in this environment (``constants.py``; ``scratch`` unused)."""
        from .constants import parallel_calls, tool_error

        bound = {"ref": "google.adk.agents.run_config:RunConfig().max_llm_calls", "value": RunConfig().max_llm_calls}
        return {"step_limit": bound, "tool_error": tool_error(), "parallel_calls": parallel_calls()}

    def open_session(self, context: SessionContext) -> ADKSession:
        scenario, world, contract = context.scenario, context.world, context.contract
        statuses: dict[str, str] = {}
        names = list(scenario.tools)
        url = context.request.model_url
        toolsets: list[BaseToolset] = []
        offered: Callable[[LlmRequest], None] | None = None
        if context.mode == "mcp":  # every tool from the runner's MCP server, through ADK's McpToolset (mcp.py)
            from .mcp import mcp_toolset, offered_once

            served = endpoint(scenario.id, context.request)
            toolsets, offered = [mcp_toolset(served)], offered_once(served, context.trace.emit)
        model = wire_model(url) if url else ScriptedLlm(ScriptedModel.of(scenario, context.scratch, world.faults), offered)
        options: dict[str, Any] = {}
        if contract is not None:
            # contract glue: start
            from .glue import GlueSession, bound, contract_app_options, guard

            options = {"before_tool_callback": guard(world, contract, statuses, context.scratch), "before_model_callback": bound(contract)}
            # contract glue: end
        agent = LlmAgent(name="fixture_agent", model=model, instruction=scenario.system_prompt or "",
                         tools=[*toolsets] if toolsets else [*fixture_tools(world, names, confirm=contract is None, statuses=statuses)], **options)
        app = App(name=APP, root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=True),
                  **(contract_app_options() if contract is not None else {}))
        runner = Runner(app=app, session_service=SavesObserved(str(context.scratch / DB), world.faults.saved))
        if contract is not None:
            # contract glue: start
            return GlueSession(runner, context, statuses)
            # contract glue: end
        return ADKSession(runner, context, statuses, toolsets)

    def tool_schemas(self, names: list[str], mode: str) -> dict[str, dict[str, Any]]:
        """Each ``FunctionTool``'s declaration (``_get_declaration().parameters_json_schema``: what ADK sends the model),
        as ``defaults`` and ``wire`` build the tools; built on no world: the tools never run."""
        self.check_mode(mode)
        out = {}
        for tool in fixture_tools(cast(FixtureWorld, None), names):
            declaration = tool._get_declaration()
            out[tool.name] = dict(declaration.parameters_json_schema or {}) if declaration else {}
        return out


class SavesObserved(SqliteSessionService):
    """ADK's ``SqliteSessionService``, each event it saves then ``after_save`` (the fault plan's state-save hook):
    harness code at ADK's persistence. A partial event is not saved (ADK returns it as it is), so it is no save."""

    def __init__(self, db_path: str, after_save: Callable[[], None]) -> None:
        super().__init__(db_path)
        self._after_save = after_save

    async def append_event(self, session: Session, event: Event) -> Event:
        saved = await super().append_event(session, event)
        if not event.partial:
            self._after_save()
        return saved
