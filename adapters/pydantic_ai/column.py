"""The ``pydantic_ai`` column: Pydantic AI ``Agent`` + ``requires_approval`` + ``DeferredToolRequests`` /
``DeferredToolResults`` + the message history saved with ``ModelMessagesTypeAdapter`` (see MAPPING.md).
Each driver step builds the agent afresh in its worker; the session reads everything else from the scratch directory.
Nothing races (no background writes; a turn's ``async`` tools never await), so there are no schedules.
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

from pydantic_ai import Agent, DeferredToolRequests, ModelMessagesTypeAdapter, UsageLimits

from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.scripted_model import ScriptedModel
from harness.column_side.trace.facts import facts_from_column_trace
from harness.records import ScenarioRun, StepFacts

from ..column import FrameworkColumn, SessionContext
from ..mcp_endpoint import endpoint
from .glue import contract_tools, tool_retries
from .mcp import mcp_toolset, offered_once
from .model import scripted_function_model
from .session import PydanticAISession, answers, load_history
from .tools import SessionUser, fixture_tools
from .wire import wire_model


class PydanticAIColumn(FrameworkColumn):
    """Pydantic AI's own loop, approval and saved history; contract glue from ``adapters.glue_blocks``."""

    name = "pydantic_ai"
    modes: ClassVar[tuple[str, ...]] = ("defaults", "contract", "wire", "mcp")
    batched_decisions = True  # one DeferredToolResults answers every deferred call of a turn (a partial set: UserError)
    approval_fields: ClassVar[dict[str, str]] = {"call": "pydantic_ai._deferred:DeferredToolResults approvals (keyed by call id)",
                                                 "arguments": "pydantic_ai._deferred:ToolApproved override_args",
                                                 "single_use": "pydantic_ai._deferred:DeferredToolResults approvals (keyed by call id)"}
    mechanisms: ClassVar[dict[str, str]] = {
        "loop": "pydantic_ai._agent_graph:build_agent_graph",
        "tool_dispatch": "pydantic_ai._tool_execution:process_tool_calls",
        "message_assembly": "pydantic_ai._agent_graph:ModelRequestNode._prepare_request",
        "approval": "pydantic_ai._tool_execution:_ToolCallProcessor._collect_deferred_calls",
        "persistence": "pydantic_ai.run:AgentRunResult.all_messages_json",
    }
    constants: ClassVar[dict[str, str]] = {"step_limit": "pydantic_ai.usage:UsageLimits(request_limit)"}
    defaults_never_reaches: ClassVar[dict[str, str]] = {
        "session.py:open_calls": "a history with no model response yet: contract's glue saves the history at every node, so a run killed "
                                 "before the first model turn leaves the prompt (scenarios/snapshot_after_kill_before_first_turn.json); "
                                 "defaults saves it when the run returns, so that run leaves nothing and its resume is refused first",
        "session.py:PydanticAISession._node_saved": "the fault plan's state-save hook after the save at every node, which only contract's "
                                                    "glue makes (a kill point, harness code: docs/sweep.md); defaults saves the history "
                                                    "once, when the run returns, and the hook follows that save in _run",
    }

    def prepare(self, mode: str) -> None:
        """Pay once in the column process what Pydantic AI does on first use, which every forked worker would otherwise
        pay again: ``ModelMessagesTypeAdapter`` builds its pydantic core schema (about 140 ms), and a run imports anyio's
        asyncio backend and ``genai_prices``' price data (about 45 ms)."""
        import anyio._backends._asyncio  # noqa: F401
        import genai_prices.data  # noqa: F401

        ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json([]))

    def facts(self, run: ScenarioRun, mode: str) -> list[StepFacts]:
        """A pause's calls were validated: the glue admitted them (``contract``), or Pydantic AI listed them for
        approval, which it does only after its own (lax) validation passed (``defaults``)."""
        self.check_mode(mode)
        contract = mode == "contract"
        return facts_from_column_trace(run, dedup_by="glue" if contract else "framework", admitted_kind="call_admitted" if contract else "args_validated")

    def open_session(self, context: SessionContext) -> PydanticAISession:
        scenario, world, contract = context.scenario, context.world, context.contract
        scripted = ScriptedModel.of(scenario, context.scratch, world.faults)
        statuses: dict[str, str] = {}
        names = list(scenario.tools)
        tools = fixture_tools(world, names) if contract is None else contract_tools(world, names, contract, statuses, context.scratch)
        served = endpoint(scenario.id, context.request) if context.mode == "mcp" else None  # mcp: every tool from the server
        toolsets = [mcp_toolset(served)] if served is not None else []
        offered = offered_once(served, context.trace.emit) if served is not None else lambda info: None
        model = wire_model(url) if (url := context.request.model_url) else scripted_function_model(scripted, offered)  # wire: its OpenAI model
        agent = Agent(model, output_type=[str, DeferredToolRequests], tools=tools if not toolsets else [], toolsets=toolsets, system_prompt=scenario.system_prompt or (),
                      deps_type=SessionUser,  # every run passes the session's user as its deps (PydanticAISession)
                      retries=None if contract is None else tool_retries(contract))  # None: Pydantic AI's own default
        return PydanticAISession(agent, context, statuses)

    def tool_schemas(self, names: list[str], mode: str) -> dict[str, dict[str, Any]]:
        """Each ``Tool`` object's definition, ``Tool.tool_def.parameters_json_schema`` (the schema Pydantic AI derived from
        the function's signature), as ``defaults`` and ``wire`` build the tools; built on no world: the tools never run."""
        self.check_mode(mode)
        return {t.name: dict(t.tool_def.parameters_json_schema) for t in fixture_tools(cast(FixtureWorld, None), names)}

    def detail(self, run: ScenarioRun, mode: str) -> dict[str, Any]:
        """The saved history's shape, and Pydantic AI's default step bound read from the pinned environment."""
        history = load_history(run.scratch)
        return {
            "history": [f"{m.kind}:{','.join(p.part_kind for p in m.parts)}" for m in history],
            "answered_calls": [p.tool_call_id for p in answers(history)],
            "default_request_limit": UsageLimits().request_limit,
        }
