"""The agent under test: an AgentScope 2.x ``Agent`` with a ``Toolkit`` of ``FunctionTool``s and the permission system.

``defaults`` builds it as AgentScope's documentation teaches: the scripted chat model,
the fixture tools as typed functions in ``FunctionTool``s (read-only ones flagged
``is_read_only``, which the permission engine auto-allows; the reversible write allowed
by its own ``PermissionDecision``; every other function tool left at AgentScope's
default, which asks the user), the scenario's system prompt and the ``AgentState``
loaded from the session's file; every config (``ReActConfig``, ``InjectionConfig``,
``ModelConfig``, ``ContextConfig``) at its default. ``contract`` is the same agent plus
the glue's middleware and executor, ``ReActConfig(max_iters=max_steps)`` and no
runtime-state injection (the contract sends the model only the script, the user input
and tool results).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentscope.agent import Agent, InjectionConfig, ReActConfig
from agentscope.state import AgentState
from agentscope.tool import Toolkit

from harness.scenarios import Scenario
from harness.scripted_model import ScriptedModel
from harness.world import FixtureWorld

from .glue import Contract, ContractMiddleware, Executor
from .model import ScriptedChatModel
from .tools import CallIdObserver, Emit, defaults_permissions, fixture_tools

AGENT_NAME = "assistant"


def build_agent(
    scenario: Scenario, world: FixtureWorld, scratch: Path, state: AgentState, emit: Emit,
    contract: Contract | None = None, save_state: Callable[[AgentState], None] | None = None,
) -> Agent:
    """The agent over ``state``; ``contract`` (the glue, with the function that saves the state) is None in ``defaults``."""
    model = ScriptedChatModel(
        ScriptedModel(
            scenario.model_script,
            user_inputs=scenario.user_inputs,
            system_prompt=scenario.system_prompt,
            log_path=scratch / "model_log.jsonl",
            faults=world.faults,
        )
    )
    names = list(scenario.tools)
    options: dict[str, Any] = {}
    middlewares: list[Any] = [CallIdObserver(emit)]
    guard = None
    # contract glue: start
    if contract is not None:
        assert save_state is not None
        guard = Executor(contract).run
        middlewares.append(ContractMiddleware(contract, save_state))
        options = {"react_config": ReActConfig(max_iters=scenario.max_steps), "injection_config": InjectionConfig(inject_runtime_state=False)}
    # contract glue: end
    toolkit = Toolkit(tools=fixture_tools(world, names, defaults_permissions(names), guard))
    return Agent(
        name=AGENT_NAME,
        system_prompt=scenario.system_prompt or "",
        model=model,
        toolkit=toolkit,
        middlewares=middlewares,
        state=state,
        **options,
    )
