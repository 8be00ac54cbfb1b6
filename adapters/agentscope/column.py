"""The ``agentscope`` column: an AgentScope 2.x ``Agent`` + ``Toolkit`` of ``FunctionTool``s + permission system + ``AgentState``.

Every driver step runs in a worker forked from the column process and rebuilds the agent from
the files in the scratch directory: the ``AgentState`` in ``agent_state.json`` (the step's
status in ``session.json``; the ledger is the runner's) and, in ``contract`` mode, the glue's
records in ``contract.sqlite`` and ``intents.jsonl``. AgentScope is asynchronous: each step
runs on the event loop the base column opens for it, never one shared across the fork. Ids and
timestamps come from ``agentscope.set_id_factory`` / ``set_timestamp_factory`` (a counter per
driver step, a fixed time), so the saved state is deterministic.

How the driver's steps map onto AgentScope (session id -> ``AgentState.session_id``; the
framework-independent checks of ``contract`` mode are the base column's):

- ``run`` / ``deliver_again``: ``agent.reply_stream(UserMsg(input))``; AgentScope has no inbound
  event id, so ``defaults`` sends a redelivery as a new user message.
- ``approve`` / ``misuse_token`` / ``reject``: ``UserConfirmResultEvent(reply_id, [ConfirmResult(
  confirmed=..., tool_call=<the asking ToolCallBlock>)])``, one call per event. A confirmation
  carries no token: in ``defaults`` a misuse goes in as a confirmation, which AgentScope binds to
  the tool call id (it refuses, before the reply starts, one for a call that is not asking).
  A rejection is answered by AgentScope with a denied tool result, and the model continues.
  Every ``FunctionTool`` asks in ``defaults``: a confirmation the contract would not have asked
  for (a read-only or reversible call, an always-denied one) is answered by the base column
  with the contract's decision, within the same driver step (``implicit_decision``).
- ``resume``: ``reply(None)`` from the saved state in a fresh process. ``defaults`` saves only
  when a reply returns, so a kill loses the whole step.
- ``reconcile``: ``contract`` only (the glue's ``ContractSession``).
- ``snapshot`` / ``restore``: AgentScope keeps no history; the snapshot is a copy of the saved
  ``AgentState`` (and status), and a restore puts that copy back.

``mcp`` mode is ``defaults`` with every tool from the runner's MCP server through AgentScope's own
``MCPClient`` (``mcp.py``), connected when the session opens and closed with it.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Awaitable
from typing import Any, ClassVar, cast

import agentscope
from agentscope.state import AgentState

from adapters.column import FrameworkColumn, SessionContext
from adapters.mcp_endpoint import endpoint
from harness.column_side.trace.facts import facts_from_column_trace
from harness.records import ScenarioRun, StepFacts

from .agent import build_agent
from .mcp import McpAgentSession, McpToolNames, ToolsSeen, mcp_client
from .session import STATE, AgentSession, load_state, save_state
from .tools import CallIdObserver, World, fixture_tools

FIXED_TIME = "2026-01-01 00:00:00.000"


class AgentScopeColumn(FrameworkColumn):
    """AgentScope 2.x: its ``Agent`` loop, permission system, human confirmation and ``AgentState``.

    AgentScope takes confirmations one call at a time, in any order (``batched_decisions`` is
    False): a ``UserConfirmResultEvent`` may answer any subset of the calls that ask, and the
    calls still asking keep the reply parked."""

    name = "agentscope"
    modes: ClassVar[tuple[str, ...]] = ("defaults", "contract", "wire", "mcp")
    batched_decisions = False
    approval_fields: ClassVar[dict[str, str]] = {"call": "agentscope.event:ConfirmResult tool_call.id", "arguments": "agentscope.event:ConfirmResult tool_call.input",
                                                 "single_use": "agentscope.event:ConfirmResult tool_call.id"}
    mechanisms: ClassVar[dict[str, str]] = {
        "loop": "agentscope.agent:Agent._reply_impl",
        "tool_dispatch": "agentscope.agent:Agent._execute_tool_call",
        "message_assembly": "agentscope.agent:Agent._prepare_model_input",
        "approval": "agentscope.agent:Agent._handle_incoming_event",
        "persistence": "agentscope.state:AgentState",
    }
    constants: ClassVar[dict[str, str]] = {"step_limit": "agentscope.agent._config:ReActConfig(max_iters)"}

    def prepare(self, mode: str) -> None:
        """AgentScope imports ``json_repair`` only when it first parses tool arguments: import it here,
        in the column process, so forked workers do not pay it (``agentscope`` itself is imported above)."""
        import json_repair  # noqa: F401

    def open_session(self, context: SessionContext) -> AgentSession | Awaitable[AgentSession]:
        ids = itertools.count()
        agentscope.set_id_factory(lambda: f"as-{context.request.index}-{next(ids)}")  # unique across steps, stable across runs
        agentscope.set_timestamp_factory(lambda: FIXED_TIME)
        scenario, scratch, world, emit = context.scenario, context.scratch, context.world, context.trace.emit
        state, names = load_state(scratch, scenario.session_id), list(scenario.tools)
        if context.contract is not None:
            # contract glue: start
            from .glue import OPTIONS, ContractMiddleware, Executor
            from .glue_session import ContractSession

            executor = Executor(context.contract, world)
            middleware = ContractMiddleware(context.contract, executor, functools.partial(save_state, scratch))
            agent = build_agent(scenario, scratch, state, world.faults, fixture_tools(executor, names, scenario.user), [CallIdObserver(emit), middleware], **OPTIONS)
            session = ContractSession(agent, scratch, scenario, emit, world.faults.saved, context.contract, executor)
            world.faults.on_kill(session.before_kill)
            return session
            # contract glue: end
        if context.mode == "mcp":
            return self._open_mcp_session(context, state)
        agent = build_agent(scenario, scratch, state, world.faults, fixture_tools(world, names, scenario.user), [CallIdObserver(emit)],
                            model_url=context.request.model_url)
        return AgentSession(agent, scratch, scenario, emit, world.faults.saved)

    async def _open_mcp_session(self, context: SessionContext, state: AgentState) -> AgentSession:
        """``defaults`` with no fixture tool: the toolkit's tools come from the step's connected MCP client (``mcp.py``)."""
        scenario, emit = context.scenario, context.trace.emit
        where = endpoint(scenario.id, context.request)
        client = mcp_client(where)
        await client.connect()  # a stateful client is connected before the toolkit is built (the MCP page)
        names = McpToolNames()
        try:
            agent = build_agent(scenario, context.scratch, state, context.world.faults, [], [CallIdObserver(emit)],
                                mcps=[client], names=names, on_tools=ToolsSeen(emit, where.transport))
        except BaseException:
            await client.close()
            raise
        return McpAgentSession(agent, client, context.scratch, scenario, emit, context.world.faults.saved, names)

    def facts(self, run: ScenarioRun, mode: str) -> list[StepFacts]:
        """A call counts as validated before a pause once AgentScope's permission check saw it: AgentScope
        parses and validates a call's input before it decides permission (and, in ``contract``, the glue's
        strict check is that decision)."""
        self.check_mode(mode)
        return facts_from_column_trace(run, dedup_by="glue" if mode == "contract" else "framework", admitted_kind="permission")

    def tool_schemas(self, names: list[str], mode: str) -> dict[str, dict[str, Any]]:
        """Each ``FunctionTool``'s ``input_schema`` (``ToolBase``'s schema of the tool's input, which AgentScope builds from
        the function's signature and docstring), as ``defaults`` and ``wire`` build the tools; built on no world and for
        no user: the schema is read, the tools never run."""
        self.check_mode(mode)
        return {t.name: dict(t.input_schema) for t in fixture_tools(cast(World, None), names, "")}

    def detail(self, run: ScenarioRun, mode: str) -> dict[str, Any]:
        """The saved ``AgentState`` in brief and the reasons behind the run's differences."""
        self.check_mode(mode)
        saved = (run.scratch / STATE).exists()
        state = load_state(run.scratch, run.scenario.session_id)
        calls = [b for m in state.context for b in m.get_content_blocks("tool_call")]
        return {
            "agent_state": {
                "saved": saved,
                "session_id": state.session_id,
                "messages": len(state.context),
                "roles": [m.role for m in state.context],
                "tool_calls": [{"id": c.id, "name": c.name, "state": str(c.state)} for c in calls],
                "cur_iter": state.cur_iter,
                "bytes": len(state.model_dump_json()) if saved else 0,
            },
        }
